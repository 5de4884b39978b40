/**
 * The `effects` section: effect requests emitted as data when a trigger holds.
 * Ids are unique; the executor kind must be enabled (`svc.effects.kinds.enabled`);
 * the trigger and every other JSONata member (`dedupeKey`, `requests`,
 * `prompt`, `at`, `afterMs`) make the effect's node depend on what they read,
 * and so does the status document at `statusPath` (resetting it re-arms the
 * effect; where it may go: `status_paths.ts`). The members executors need are
 * compiled here once: the request with its `{expr}` templates, `response.set`,
 * the timer and LLM expressions and the retry policy (DECISIONS.md "Effects").
 *
 * @module
 */
import { VOLATILE_BUILTINS } from "../../expr/builtin_names.ts";
import type { CompiledExpression } from "../../expr/compiler.ts";
import { extractReads } from "../../expr/dependencies.ts";
import { freeVariables } from "../../expr/free_variables.ts";
import { formatPath, isPrefixOf, type Segment } from "../../json/path.ts";
import { isObject, type Json, type JsonObject, setMember } from "../../json/value.ts";
import { MAX_TIMER_MS } from "../../ports.ts";
import { RESPONSE_VARIABLES } from "../expression_scope.ts";
import type {
  CompiledEffect,
  CompiledLink,
  CompiledRequest,
  EffectPolicy,
  NodeDefinition,
  Template,
} from "../nodes.ts";
import type { Effect, ModelSpec } from "../types.ts";
import type { SectionContext } from "./context.ts";
import { checkStatusPaths, type StatusPathContext, type StatusPlace } from "./status_paths.ts";

/** Effect members holding JSONata whose reads make the effect's node dirty. */
const TRIGGER_MEMBERS = ["trigger", "dedupeKey", "requests", "prompt", "at", "afterMs"] as const;

/** `policy` defaults (DECISIONS.md "Effects"): 5 s per attempt, no retry. */
export const DEFAULT_POLICY: Readonly<EffectPolicy> = Object.freeze({
  timeoutMs: 5000,
  retries: 0,
  backoffMs: 1000,
  maxBackoffMs: 60_000,
});

/**
 * The EFFECT nodes of a spec; `document` (the schema, the derivation targets)
 * tells where status documents may go; `opaqueCalls`: the library lends
 * built-ins (see `extractReads`).
 */
export function compileEffects(
  spec: ModelSpec,
  ctx: SectionContext,
  document: StatusPathContext,
  opaqueCalls?: boolean,
): NodeDefinition[] {
  const definitions: NodeDefinition[] = [];
  const ids = new Set<string>();
  const statusPlaces: StatusPlace[] = [];
  const kinds = ctx.env.config.effectKindsEnabled;
  for (const { entry: e, index, location } of ctx.entries(spec, "effects")) {
    if (typeof e.id === "string" && e.id.trim() !== "") {
      if (ids.has(e.id)) ctx.error(`${location}.id`, `duplicate effect id '${e.id}'`);
      else ids.add(e.id);
    }
    const executor = e.executor === undefined ? "server" : e.executor;
    if (kinds && typeof executor === "string" && executor.trim() !== "" && !kinds.includes(executor)) {
      ctx.error(
        `${location}.executor`,
        `executor kind '${executor}' is not enabled (svc.effects.kinds.enabled: ${kinds.join(", ")})`,
      );
    }
    if (typeof executor === "string") {
      for (const message of ctx.env.validateEffect?.(executor, e) ?? []) ctx.error(location, message);
    }
    if (
      executor === "server" && e.request === undefined && e.requests === undefined && e.target === undefined
    ) {
      ctx.warn(
        location,
        "a server effect sends nothing without `request`, `requests` or `target`: it will fail",
      );
    }
    const statusPath = e.statusPath === undefined || e.statusPath === null
      ? null
      : ctx.address(e.statusPath, `${location}.statusPath`, true);
    const compiled: Partial<Record<typeof TRIGGER_MEMBERS[number], CompiledExpression | null>> = {};
    for (const member of TRIGGER_MEMBERS) {
      if (e[member] !== undefined && e[member] !== null) {
        compiled[member] = ctx.expression(e[member], `${location}.${member}`);
      }
    }
    if (statusPath && typeof e.id === "string") {
      statusPlaces.push({
        id: e.id,
        location: `${location}.statusPath`,
        path: statusPath,
        keyed: e.dedupeKey !== undefined && e.dedupeKey !== null,
      });
    }
    if (compiled.dedupeKey) {
      checkStableKey(compiled.dedupeKey, statusPath, `${location}.dedupeKey`, ctx, opaqueCalls);
    }
    const effect: CompiledEffect = {
      definition: e as unknown as Effect,
      executor: executor as string,
      payload: compilePayload(e.payload, `${location}.payload`, ctx),
      dedupeKey: compiled.dedupeKey ?? null,
      statusPath,
      request: compileRequest(e.request, `${location}.request`, ctx),
      requests: compiled.requests ?? null,
      link: compileLink(e, location, ctx),
      responseSet: compileResponseSet(e.response, `${location}.response.set`, ctx),
      prompt: compiled.prompt ?? null,
      at: compiled.at ?? null,
      afterMs: compiled.afterMs ?? null,
      policy: policyOf(e.policy, `${location}.policy`, ctx),
    };
    const trigger = compiled.trigger;
    if (!trigger || typeof e.id !== "string" || typeof executor !== "string") continue;
    definitions.push({
      node: {
        key: `$effect:${e.id}`,
        kind: "EFFECT",
        label: typeof e.description === "string" ? e.description : e.id,
        expression: e.trigger as string,
        elementPattern: null,
        index,
        reads: [],
        level: 0,
        compiled: trigger,
        effect,
      },
      sources: Object.values(compiled).filter((c): c is CompiledExpression => c !== null),
      alsoReads: statusPath ? [statusPath] : [],
    });
  }
  checkStatusPaths(statusPlaces, document, ctx);
  return definitions;
}

/**
 * A `dedupeKey` is compared with the key stored at the effect's last firing: one
 * that reads the clock or chance, or the effect's own status document (which
 * every phase change rewrites), differs after each commit, so the effect would
 * be sent again after each of its own phase changes, without end. Where the
 * library lends built-ins, a call of a function value may read its context
 * whole: one where the context holds the status document (`$lib()()` at the
 * top, `io.($lib()())`) reads it; one where the context is lost was fed by a
 * read the check sees.
 */
function checkStableKey(
  key: CompiledExpression,
  statusPath: Segment[] | null,
  location: string,
  ctx: SectionContext,
  opaqueCalls?: boolean,
): void {
  const volatile = freeVariables(key.ast).find((variable) => VOLATILE_BUILTINS.has(variable.name));
  if (volatile) {
    ctx.error(
      location,
      `the dedupeKey calls $${volatile.name}, which answers differently at every commit: the effect would be ` +
        "sent again after each of its own status changes",
    );
  }
  if (!statusPath) return;
  const read = extractReads(key.ast, { isArray: () => false, opaqueCalls }).find(({ path }) =>
    isPrefixOf(path, statusPath) || isPrefixOf(statusPath, path)
  );
  if (read) {
    ctx.error(
      location,
      `the dedupeKey reads ${
        formatPath(read.path)
      }, where the effect's status document changes at every phase: ` +
        "the effect would be sent again after each of its own status changes",
    );
  }
}

/** A caller effect's `payload`: one expression, or one per member of an object. */
function compilePayload(payload: unknown, location: string, ctx: SectionContext): CompiledEffect["payload"] {
  if (typeof payload === "string") return ctx.expression(payload, location);
  if (!isObject(payload)) return null;
  const members: Record<string, CompiledExpression> = {};
  for (const [key, source] of Object.entries(payload)) {
    const compiled = ctx.expression(source, `${location}.${key}`);
    if (compiled) setMember(members, key, compiled);
  }
  return members;
}

/**
 * A text with `{expr}` parts; a part that does not compile is a finding. Braces
 * balance, so an object constructor inside a part (`{ {"a": 1}.a }`) works.
 */
export function compileTemplate(text: string, location: string, ctx: SectionContext): Template {
  const parts: Template = [];
  let literal = "";
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "{") {
      literal += text[i];
      continue;
    }
    let depth = 1;
    let j = i + 1;
    for (; j < text.length && depth > 0; j++) {
      if (text[j] === "{") depth++;
      else if (text[j] === "}") depth--;
    }
    if (depth > 0) {
      ctx.error(location, `unbalanced '{' at position ${i}`);
      return parts;
    }
    if (literal) parts.push(literal);
    literal = "";
    const compiled = ctx.expression(text.slice(i + 1, j - 1), location);
    if (compiled) parts.push(compiled);
    i = j - 1;
  }
  if (literal) parts.push(literal);
  return parts;
}

/**
 * Why an effect's URL may not carry credentials, and where they go instead:
 * no transport sends `user:password@` (a browser's `fetch` refuses the URL,
 * the server's request would go without them).
 */
export const URL_CREDENTIALS =
  "the URL carries credentials (user:password@), which are never sent: put them " +
  `in a request header, e.g. "authorization": "Basic { $base64encode('user:password') }" (README "Effects")`;

/** A URL whose literal beginning holds the user part of its authority (`https://user:pass@host/…`). */
const STATIC_USERINFO = /^\s*[a-z][a-z0-9+.-]*:\/\/[^/?#\\{]*@/i;

/**
 * A server effect's `request`: method (GET), url and header templates, body.
 * Credentials in the URL's literal part are refused here; computed ones fail
 * the request when it is sent (http_executor.ts).
 */
function compileRequest(request: unknown, location: string, ctx: SectionContext): CompiledRequest | null {
  if (!isObject(request) || typeof request.url !== "string") return null;
  if (STATIC_USERINFO.test(request.url)) ctx.error(`${location}.url`, URL_CREDENTIALS);
  const headers = isObject(request.headers) ? request.headers : {};
  return {
    method: typeof request.method === "string" ? request.method.toUpperCase() : "GET",
    url: compileTemplate(request.url, `${location}.url`, ctx),
    headers: Object.entries(headers).map(([name, value]) => [
      name,
      compileTemplate(String(value), `${location}.headers.${name}`, ctx),
    ]),
    ...(request.body === undefined ? {} : {
      body: typeof request.body === "string"
        ? ctx.expression(request.body, `${location}.body`) ?? undefined
        : request.body as Json,
    }),
  };
}

/** `target` (a link to another model) with its `body`; exactly one of `path` and `read`. */
function compileLink(effect: JsonObject, location: string, ctx: SectionContext): CompiledLink | null {
  const target = effect.target;
  if (!isObject(target) || typeof target.ref !== "string") return null;
  const at = `${location}.target`;
  const path = typeof target.path === "string" ? target.path : null;
  const read = typeof target.read === "string" ? target.read : null;
  if ((path === null) === (read === null)) {
    ctx.error(at, "a link names exactly one of `path` (a write-link) and `read` (a read-link)");
  }
  if (path !== null) ctx.address(path, `${at}.path`, true);
  if (read !== null) ctx.address(read, `${at}.read`, true);
  if (effect.request !== undefined || effect.requests !== undefined) {
    ctx.error(location, "an effect has one of `request`, `requests` and `target`");
  }
  if (path !== null && effect.body === undefined) ctx.error(at, "a write-link needs a `body` (JSONata)");
  if (read !== null && target.watch !== undefined && typeof target.watch !== "boolean") {
    ctx.error(`${at}.watch`, "watch must be true or false");
  }
  return {
    ref: target.ref,
    path,
    read,
    watch: target.watch === true,
    body: path !== null && effect.body !== undefined ? ctx.expression(effect.body, `${location}.body`) : null,
  };
}

/** `response.set`: target address -> JSONata. */
function compileResponseSet(
  response: unknown,
  location: string,
  ctx: SectionContext,
): [Segment[], CompiledExpression][] {
  const set = isObject(response) && isObject(response.set) ? response.set : {};
  const out: [Segment[], CompiledExpression][] = [];
  for (const [address, source] of Object.entries(set)) {
    const target = ctx.address(address, `${location}['${address}']`, true);
    const compiled = ctx.expression(source, `${location}['${address}']`, RESPONSE_VARIABLES);
    if (target && compiled) out.push([target, compiled]);
  }
  return out;
}

/** The longest wait between two attempts. */
const MAX_BACKOFF_MS = 365 * 24 * 3600 * 1000;

/**
 * `policy` with its defaults; `backoff` is a delay in ms or `{initialMs, maxMs}`.
 * An attempt's time limit is one timer, so `timeoutMs` is at most
 * {@link MAX_TIMER_MS}; waits between attempts may be longer (they are chained).
 */
function policyOf(policy: unknown, location: string, ctx: SectionContext): EffectPolicy {
  if (!isObject(policy)) return { ...DEFAULT_POLICY };
  const number = (value: unknown, fallback: number) =>
    typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : fallback;
  if (typeof policy.timeoutMs === "number" && policy.timeoutMs > MAX_TIMER_MS) {
    ctx.error(
      `${location}.timeoutMs`,
      `timeoutMs ${policy.timeoutMs} is longer than an attempt may wait: at most ${MAX_TIMER_MS} ms (about 24.8 days)`,
    );
  }
  const backoff = policy.backoff;
  const backoffObject: JsonObject = isObject(backoff) ? backoff : {};
  // A wait is a whole number of ms of at most a year: a job's due time is stored as an integer (PostgreSQL's
  // bigint), and `1e300` or `0.5` would make it unstorable. Applied, not refused: stored specs must load.
  const wait = (value: unknown, fallback: number, at: string) => {
    const ms = number(value, fallback);
    if (ms > MAX_BACKOFF_MS) ctx.warn(at, `a wait of ${ms} ms is taken as ${MAX_BACKOFF_MS} ms (one year)`);
    return Math.min(Math.round(ms), MAX_BACKOFF_MS);
  };
  return {
    timeoutMs: number(policy.timeoutMs, DEFAULT_POLICY.timeoutMs),
    retries: Math.floor(number(policy.retries, DEFAULT_POLICY.retries)),
    backoffMs: typeof backoff === "number"
      ? wait(backoff, DEFAULT_POLICY.backoffMs, `${location}.backoff`)
      : wait(backoffObject.initialMs, DEFAULT_POLICY.backoffMs, `${location}.backoff.initialMs`),
    maxBackoffMs: wait(backoffObject.maxMs, DEFAULT_POLICY.maxBackoffMs, `${location}.backoff.maxMs`),
  };
}
