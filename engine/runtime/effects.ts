/**
 * Effects as data: after a cycle settles, each effect whose inputs changed and
 * whose trigger holds fires. A caller effect is reported in the result with its
 * evaluated payload; any other kind becomes an effect request for its
 * executor, with everything the executor needs resolved against the state it
 * fired in (the request with its `{expr}` parts, the timer's instant, the LLM
 * prompt). Nothing here performs I/O.
 *
 * The status document at `statusPath` guards re-firing (DECISIONS.md
 * "Effects"): an effect is not sent again while its document says `pending` or
 * `in_flight`, nor while its `dedupeKey` equals the stored `key`. An effect
 * that fires writes `{phase: "pending", key, at, error: null}` there in the
 * same cycle, so the commit that fires it records it.
 *
 * @module
 */
import type { CompiledExpression } from "../expr/compiler.ts";
import { touchedInOrder } from "../graph/touched.ts";
import type { Segment } from "../json/path.ts";
import { isObject, type Json, jsonEqual, setMember } from "../json/value.ts";
import type { InheritedEffectsPolicy } from "../config.ts";
import { schemaViolation } from "../errors.ts";
import { shortMessage } from "../quoted.ts";
import type { EffectNode, Template } from "../model/nodes.ts";
import { statusDocument } from "../model/status_document.ts";
import type { Effect } from "../model/types.ts";
import type { CycleState } from "./cycle_state.ts";
import { materializeInputs } from "./derive.ts";
import { fanOutWork } from "./fan_out.ts";
import { isoInstant } from "./instant.ts";
import type { DispatchedEffect, EffectRequest, EffectWork, HttpRequestSpec } from "./results.ts";
import { settled, type Steps } from "./steps.ts";
import { truthy } from "./truthy.ts";
import { checkStatusWrite } from "./write_checks.ts";

// The document's shape is the model's (its schema must accept it); executors find it here, beside its writes.
export { type EffectPhase, type StatusDocument, statusDocument } from "../model/status_document.ts";

/**
 * Whether the status document at an effect's `statusPath` holds it back: while
 * it is pending or in flight, and after it ran for the same key (an effect
 * without `dedupeKey` has the key null: it runs once until its status document
 * is cleared). A cancelled one never holds back: cancelling resets the key;
 * nor does a refused status document's record: nothing was sent (an approval
 * of an effect whose blocked document was refused fires it).
 */
export function heldBack(status: Json | undefined, key: Json): boolean {
  if (!isObject(status)) return false;
  if (status.phase === "pending" || status.phase === "in_flight") return true;
  return status.phase !== "cancelled" && status.phase !== "blocked" &&
    !(status.phase === "failed" && REFUSAL.test(String(status.error))) && jsonEqual(status.key ?? null, key);
}

/** How a refused status document's record begins. */
const REFUSED = "status document refused";
/**
 * A refused status document's record as the engine writes it: the refusal's
 * whole form, not its first words, which an executor's failure text or a
 * client's write may share (and hold the effect back as any failure does).
 */
const REFUSAL = RegExp(`^${REFUSED}: Schema violation: \\$.*? \\(\\w+\\): `);

/** What an effect may do now: run, wait for approval (`blocked`), or never dispatch (`skip`). */
export type EffectGate = "run" | "blocked" | "skip";

/**
 * Quarantine (SPEC.md "Inherited effect quarantine"): an effect a branch
 * inherited from another owner's template (its `origin.fromOwner` differs
 * from the model's namespace), other than `caller`, waits for an approval of
 * its current `definitionHash` under `svc.authz.inherited-effects=approve`,
 * never dispatches under `deny`, and runs under `allow`. Same-owner and
 * branch-authored effects always run.
 */
export function effectGate(definition: Effect, modelId: string, policy: InheritedEffectsPolicy): EffectGate {
  const origin = definition.origin as { fromOwner?: unknown } | undefined;
  if (!isObject(origin) || definition.executor === "caller") return "run";
  const owner = modelId.includes("/") ? modelId.slice(0, modelId.indexOf("/")) : null;
  if ((origin.fromOwner ?? null) === owner || policy === "allow") return "run";
  if (policy === "deny") return "skip";
  const approval = definition.approval as { definitionHash?: unknown } | undefined;
  return isObject(approval) && approval.definitionHash === definition.definitionHash ? "run" : "blocked";
}

/** The blocked status document: no key, the reason in `error`. */
const BLOCKED_REASON = "effect_approval_required";

/** What firing produced: caller effects for the result, requests for executors. */
export interface FiredEffects {
  dispatched: DispatchedEffect[];
  requests: EffectRequest[];
  /** Where status documents were written (pending). */
  statusWrites: Segment[][];
}

/**
 * Fires the effects the changes touched; `skip` holds ids already fired in
 * this cycle, `only` (when given) the ids that may fire at all.
 */
export function* collectEffects(
  state: CycleState,
  skip: ReadonlySet<string> = new Set(),
  only?: ReadonlySet<string>,
): Steps<FiredEffects> {
  const fired: FiredEffects = { dispatched: [], requests: [], statusWrites: [] };
  for (const node of touchedInOrder(state.model.graph.effects, () => state.dirty)) {
    const effect = node.effect;
    const id = effect.definition.id;
    if (skip.has(id) || (only && !only.has(id)) || !state.dirty.touches(node)) continue;
    yield* materializeInputs(state, node);
    const { value, error } = yield* settled(state.evaluate(node, null, node.key));
    if (error || !truthy(value)) continue;
    if (effect.executor === "caller") {
      fired.dispatched.push({
        effectId: effect.definition.id,
        emit: effect.definition.emit ?? null,
        payload: yield* settled(payloadOf(state, node)),
      });
      continue;
    }
    const gate = effectGate(effect.definition, state.model.id, state.config.inheritedEffects);
    if (gate === "skip") continue;
    if (gate === "blocked") {
      // Inert until approved: the status document says why (once), nothing is sent.
      const status = effect.statusPath ? state.draft.get(effect.statusPath) : undefined;
      if (effect.statusPath && !(isObject(status) && status.phase === "blocked")) {
        writeStatus(state, node, fired, null, statusDocument("blocked", null, state.now, BLOCKED_REASON));
      }
      continue;
    }
    const key = effect.dedupeKey ? (yield* settled(evaluated(state, effect.dedupeKey))) ?? null : null;
    if (effect.statusPath && heldBack(state.draft.get(effect.statusPath), key)) {
      continue;
    }
    if (
      effect.statusPath && !writeStatus(state, node, fired, key, statusDocument("pending", key, state.now))
    ) {
      continue;
    }
    fired.requests.push({
      effectId: effect.definition.id,
      executor: effect.executor,
      key,
      work: yield* settled(workOf(state, node)),
      definition: effect.definition,
    });
  }
  return fired;
}

/**
 * Writes an effect's status document where the model accepts it: a system
 * write, which read-only does not stop but every other rule does (live metas,
 * the keywords of the containers enclosing it), so the commit never holds a
 * state the schema refuses. A refused document is traced at the effect and
 * recorded as `failed` instead, where the model accepts that; either way the
 * effect does not go out. True when `document` itself was written.
 */
function writeStatus(
  state: CycleState,
  node: EffectNode,
  fired: FiredEffects,
  key: Json,
  document: Json,
): boolean {
  const path = node.effect.statusPath!;
  const refused = checkStatusWrite(state, path, document);
  let written = document;
  if (refused.length) {
    const error = `${REFUSED}: ${schemaViolation(refused).message}`;
    // Recorded once: a blocked effect's gate asks again on every pass, and finds this refusal on record.
    const kept = state.draft.get(path);
    if (isObject(kept) && kept.phase === "failed" && kept.error === error && jsonEqual(kept.key, key)) {
      return false;
    }
    state.trace(node, node.key, undefined, error);
    written = statusDocument("failed", key, state.now, error);
    if (checkStatusWrite(state, path, written).length) return false;
  }
  state.draft.set(path, written, state.created);
  fired.statusWrites.push(path);
  return !refused.length;
}

/** An expression's value; a failure becomes `undefined` (the effect resolves what it can). */
async function evaluated(state: CycleState, compiled: CompiledExpression): Promise<Json | undefined> {
  try {
    return await compiled.evaluate(state.draft.root, state.bindings());
  } catch {
    return undefined;
  }
}

/** A template's text: literal parts as they are, `{expr}` parts as their string values. */
async function fill(state: CycleState, template: Template): Promise<string> {
  let out = "";
  for (const part of template) {
    if (typeof part === "string") out += part;
    else {
      const value = await part.evaluate(state.draft.root, state.bindings());
      if (value !== undefined && value !== null) {
        out += typeof value === "string" ? value : JSON.stringify(value);
      }
    }
  }
  return out;
}

/** What the executor of a fired effect needs, resolved now. */
async function workOf(state: CycleState, node: EffectNode): Promise<EffectWork> {
  const effect = node.effect;
  try {
    switch (effect.executor) {
      case "server":
        return await httpWork(state, node);
      case "timer": {
        const fireAt = await timerInstant(state, effect);
        return typeof fireAt === "string" ? { type: "invalid", error: fireAt } : { type: "timer", fireAt };
      }
      case "llm": {
        const prompt = effect.prompt ? await evaluated(state, effect.prompt) : undefined;
        if (typeof prompt !== "string" || prompt === "") {
          return { type: "invalid", error: "the prompt has no text" };
        }
        return { type: "llm", prompt, responseSchema: (effect.definition.responseSchema ?? null) as Json };
      }
      default:
        return {
          type: "plugin",
          definition: effect.definition as unknown as Json,
          document: state.draft.root,
        };
    }
  } catch (err) {
    // Cut where it is recorded: the outbox keeps the job, and its error, as they are.
    return { type: "invalid", error: shortMessage(`cannot resolve the request: ${(err as Error).message}`) };
  }
}

/** When a timer fires (epoch ms): its `at` (epoch ms or an ISO-8601 timestamp), or `afterMs` from now; else why not. */
async function timerInstant(state: CycleState, effect: EffectNode["effect"]): Promise<number | string> {
  if (effect.at) {
    const at = await evaluated(state, effect.at);
    if (at === undefined || at === null) return "the timer's `at` has no value";
    const ms = typeof at === "number" ? at : typeof at === "string" ? isoInstant(at) : NaN;
    if (Number.isFinite(ms)) return ms;
    return `the timer's \`at\` is neither epoch milliseconds nor an ISO-8601 timestamp of a real instant (a time of day with its UTC offset): ${
      JSON.stringify(at).slice(0, 80)
    }`;
  }
  const after = Number(effect.afterMs ? await evaluated(state, effect.afterMs) : 0);
  return Number.isFinite(after) ? state.now + after : "the timer's `afterMs` has no value";
}

/** A server effect's request(s): `request` with its templates, or the `requests` fan-out (fan_out.ts). */
async function httpWork(state: CycleState, node: EffectNode): Promise<EffectWork> {
  const effect = node.effect;
  if (effect.link) {
    const { ref, path, read, watch, body } = effect.link;
    return {
      type: "link",
      ref,
      path,
      read,
      watch,
      body: body ? (await evaluated(state, body)) ?? null : null,
    };
  }
  if (effect.request) {
    const request = effect.request;
    const headers: Record<string, string> = {};
    for (const [name, template] of request.headers) setMember(headers, name, await fill(state, template));
    const spec: HttpRequestSpec = { method: request.method, url: await fill(state, request.url), headers };
    if (request.body !== undefined) {
      const body = isCompiled(request.body) ? await evaluated(state, request.body) : request.body;
      if (body !== undefined) spec.body = body;
    }
    return { type: "http", requests: [spec] };
  }
  if (effect.requests) return fanOutWork(state, await evaluated(state, effect.requests));
  return { type: "invalid", error: "a server effect needs `request`, `requests` or `target`" };
}

function isCompiled(value: unknown): value is CompiledExpression {
  return isObject(value) && typeof (value as unknown as CompiledExpression).evaluate === "function";
}

/** A caller effect's payload: its expression, or its members one by one (a failure becomes `{error}`). */
async function payloadOf(state: CycleState, node: EffectNode): Promise<Json> {
  const payload = node.effect.payload;
  const run = async (compiled: CompiledExpression) => {
    try {
      return await compiled.evaluate(state.draft.root, state.bindings(), state);
    } catch (err) {
      return { error: (err as Error).message };
    }
  };
  if (payload === null) return null;
  if (isCompiled(payload)) return (await run(payload)) ?? null;
  const out: Record<string, Json> = {};
  for (const [key, compiled] of Object.entries(payload as Record<string, CompiledExpression>)) {
    const value = await run(compiled);
    if (value !== undefined) setMember(out, key, value);
  }
  return out;
}
