/**
 * One model's live runtime: committed state, history, trace ring, and the
 * operations on it (mutate, patch, reads, snapshot, restore). Calls must be
 * serialised by the owner (the service's per-model queue).
 *
 * @module
 */
import type { EngineConfig } from "../config.ts";
import {
  badRequest,
  type ConstraintViolation,
  constraintViolation,
  describeViolations,
  notFound,
  shortened,
  tooLarge,
  unprocessable,
} from "../errors.ts";
import {
  type CreatedContainers,
  DocumentDraft,
  DocumentTooLargeError,
  expandPattern,
  getAt,
} from "../json/document.ts";
import { jsonBytes } from "../json/measure.ts";
import { isoInstant } from "./instant.ts";
import { cloneJson, isObject, type Json, type JsonObject } from "../json/value.ts";
import type { Clock } from "../ports.ts";
import type { CompiledModel } from "../model/compile.ts";
import type { CompiledNode } from "../model/nodes.ts";
import { didYouMean } from "../nearest.ts";
import { canonicalizePath, formatPath, patternMatches, type Segment } from "../json/path.ts";
import { targetHolding } from "../model/target_index.ts";
import { undeclared } from "../model/undeclared_reads.ts";
import { META_KEYS, metaHashAt, metaPropertyName } from "../model/types.ts";
import { strandedValues } from "../model/stranded_values.ts";
import { Cycle } from "./pipeline.ts";
import type { CycleOutcome, ModelState, PatchOperation, WriteSource } from "./results.ts";
import { computedTraces, CONSTRAINT_TRACE, type TraceRecord, TraceRing } from "./traces.ts";
import { checkMetaOverlay, writeKey } from "./write_checks.ts";

/** What a runtime needs from its host. */
export interface RuntimeEnv {
  config: EngineConfig;
  clock: Clock;
}

/** Whether a write is a logged write replayed at startup. */
export interface CycleOptions {
  /**
   * A replay of a write that was accepted when it was made: no state size
   * limit and a tenfold expression deadline, so loading is never stricter
   * than writing was (limits may have been lowered, the machine may be slower).
   */
  replay?: boolean;
  /**
   * Evaluates on top of writes evaluated but not committed yet (a batch of
   * queued writes committed together): the last one's state, and the growth
   * of all of them over the committed state.
   */
  after?: { state: ModelState; growth: number };
}

/** The deadline factor of a replayed write. */
const REPLAY_TIME_SCALE = 10;

/**
 * Expressions a model's first evaluation runs per expression deadline: it
 * evaluates every one once, so a large valid spec is not refused on a busy
 * machine, while a hostile expression still stops within a bounded time.
 */
const INIT_EXPRESSIONS_PER_DEADLINE = 1000;

/** A retained post-commit state. */
export interface HistoryEntry {
  at: number;
  state: ModelState;
}

/** Snapshot of state (DECISIONS.md "Snapshot"). */
export interface Snapshot {
  modelId: string;
  modelVersion: string;
  baseDoc: Json;
  derivedCache: Record<string, Json>;
  metaCache: Record<string, Json>;
}

/**
 * Parses an ISO-8601 timestamp of a real calendar date and time with its UTC
 * offset (see `instant.ts`); throws a 400 error naming the parameter otherwise.
 * The one parser of timestamps callers give (`at`, audit `from` and `to`).
 */
export function parseInstant(text: string, name: string): number {
  const ms = isoInstant(text);
  if (Number.isNaN(ms)) {
    throw badRequest(
      `'${name}' is not an ISO-8601 timestamp of a real date, or date and time with its UTC offset ` +
        `(Z or ±hh:mm): '${text}'`,
    );
  }
  return ms;
}

/** The last instant formatted: writes in the same millisecond share it (formatting costs half a µs). */
let lastInstant = { ms: NaN, text: "" };

/** Formats epoch milliseconds as an ISO-8601 UTC instant. */
export function formatInstant(ms: number): string {
  if (ms !== lastInstant.ms) lastInstant = { ms, text: new Date(ms).toISOString() };
  return lastInstant.text;
}

/** A model's live runtime. */
export class ModelRuntime {
  readonly model: CompiledModel;
  readonly #env: RuntimeEnv;
  #state: ModelState;
  /**
   * Retained history, oldest first, after `#dropped` entries no longer retained (cleared): they leave in
   * bulk once as many gathered as history keeps, rather than one by one, moving the rest, on every commit.
   */
  #history: (HistoryEntry | undefined)[] = [];
  #dropped = 0;
  #traces: TraceRing;
  /** JSON bytes of the committed document, kept exact by each commit's growth (never by serialising it). */
  #stateBytes: number;

  private constructor(model: CompiledModel, env: RuntimeEnv, state: ModelState) {
    this.model = model;
    this.#env = env;
    this.#state = state;
    this.#stateBytes = jsonBytes(state.doc);
    this.#traces = new TraceRing(env.config.traceBufferSize);
  }

  /**
   * Creates a runtime: the library's exports computed (a library that fails to
   * evaluate is a 422), an empty document seeded by schema defaults and `$`
   * rules, or `seed` (a carried-forward base document, with the containers a
   * backfill created there for their defaults), then every eager derivation
   * and meta value computed. Constraints are not enforced: there is
   * nothing to roll back to.
   */
  static async create(
    model: CompiledModel,
    env: RuntimeEnv,
    seed?: { doc: Json; created?: CreatedContainers },
    at: number = env.clock.now(),
    effects?: ReadonlySet<string>,
  ): Promise<{ runtime: ModelRuntime; outcome: CycleOutcome }> {
    await model.bindings.prepare();
    const outcome = await derive(model, env, seed ?? { doc: {}, created: [[]] }, at, effects);
    const runtime = new ModelRuntime(model, env, outcome.state);
    runtime.#traces.push(computedTraces(outcome.traces));
    return { runtime, outcome };
  }

  /**
   * The runtime of an evolved spec: `seed`, the base document carried forward, is
   * re-derived under `model` (every eager derivation and meta value
   * recomputed, lazy ones stale). The trace ring carries over as a copy, so this
   * runtime stays intact until the owner installs the new one; history does not,
   * since its states belong to the previous spec. `effects`: the ids of the
   * effects that may fire (those the evolution added or changed).
   */
  async evolve(
    model: CompiledModel,
    seed: { doc: Json; created?: CreatedContainers },
    at: number = this.#env.clock.now(),
    effects?: ReadonlySet<string>,
  ): Promise<{ runtime: ModelRuntime; outcome: CycleOutcome }> {
    const evolved = await ModelRuntime.create(model, this.#env, seed, at, effects);
    const traces = this.#traces.clone();
    traces.push(computedTraces(evolved.outcome.traces));
    evolved.runtime.#traces = traces;
    return evolved;
  }

  /** The committed state. */
  get state(): ModelState {
    return this.#state;
  }

  /** JSON bytes of the committed document (`svc.limits.max-state-bytes` is checked against it). */
  get stateBytes(): number {
    return this.#stateBytes;
  }

  /**
   * Replaces the committed state (used by storage recovery and restore).
   * `retainAt` also keeps the state as a history entry committed at that time
   * (a reloaded compaction base that was itself a post-commit state).
   */
  replaceState(state: ModelState, options: { clearHistory: boolean; retainAt?: number }): void {
    this.#state = state;
    this.#stateBytes = jsonBytes(state.doc);
    if (options.clearHistory) {
      this.#history = [];
      this.#dropped = 0;
      this.#traces.clear();
    }
    if (options.retainAt !== undefined && this.#env.config.historyMaxEntries > 0) {
      this.#history.push({ at: options.retainAt, state });
    }
  }

  /**
   * Makes an evaluated cycle the committed state and retains it in history. The
   * owner calls this once the cycle is durable, so memory never runs ahead of storage.
   */
  commit(outcome: CycleOutcome, at: number = this.#env.clock.now()): void {
    this.#state = outcome.state;
    this.#stateBytes += outcome.growth;
    const max = this.#env.config.historyMaxEntries;
    if (max > 0) {
      const history = this.#history;
      history.push({ at, state: outcome.state });
      // Cleared at once (memory as before), taken out of the list when as many as history keeps gathered.
      while (history.length - this.#dropped > max) history[this.#dropped++] = undefined;
      if (this.#dropped >= max) this.#retained();
    }
  }

  async #run(
    source: WriteSource,
    at: number,
    write: (cycle: Cycle) => void,
    { replay = false, after }: CycleOptions,
  ): Promise<CycleOutcome | null> {
    const { maxStateBytes } = this.#env.config;
    const base = after ? after.state : this.#state;
    const bytes = after ? this.#stateBytes + after.growth : this.#stateBytes;
    const cycle = new Cycle(this.model, base, this.#env.config, source, at, undefined, {
      growthBudget: replay ? Infinity : Math.max(0, maxStateBytes - bytes),
      timeScale: replay ? REPLAY_TIME_SCALE : 1,
    });
    let outcome: CycleOutcome;
    try {
      write(cycle);
      if (cycle.unchanged) return null;
      const settling = cycle.settle({
        enforceConstraints: true,
        traceLimit: this.#env.config.traceBufferSize,
      });
      // A cycle that never had to wait is not awaited: a write costs one promise, its own.
      outcome = settling instanceof Promise ? await settling : settling;
    } catch (err) {
      if (!(err instanceof DocumentTooLargeError)) throw err;
      throw tooLarge(
        `State of model '${this.model.id}' would grow to ${bytes + err.growth} bytes, over ` +
          `svc.limits.max-state-bytes (${maxStateBytes}); nothing was applied`,
      );
    }
    if (outcome.rollback.length) {
      // None of a refused cycle's values were committed, so `explain` of a field must not list them; its
      // constraint checks stay, to explain the refusal.
      this.#traces.push(outcome.traces.filter((trace) => trace.targetPath.startsWith(CONSTRAINT_TRACE)));
      throw constraintViolation(outcome.rollback);
    }
    this.#traces.push(outcome.traces);
    return outcome;
  }

  /**
   * Evaluates a flat mutation (address -> value) against the committed state (or `options.after`); the
   * result is committed by {@link commit}. Returns `null` when the map was empty
   * (nothing written). Throws a `ServiceError` on rejection or rollback. `at` is
   * the cycle's instant (`$now()`): the commit time, or a logged commit's time on replay.
   */
  evaluateMutation(
    mutations: Record<string, Json>,
    source: WriteSource = "client",
    at: number = this.#env.clock.now(),
    options: CycleOptions = {},
  ): Promise<CycleOutcome | null> {
    if (!isObject(mutations)) {
      throw badRequest("mutations must be a JSON object of canonical address to value");
    }
    const entries = Object.entries(mutations).map(([key, value]) => {
      const { path, address } = writeKey(key);
      return [path.slice(), value, address] as [Segment[], Json, string];
    });
    return this.#run(source, at, (cycle) => cycle.applyMutations(entries), options);
  }

  /** Evaluates an RFC 6902 patch; see {@link evaluateMutation}. */
  evaluatePatch(
    ops: PatchOperation[],
    at: number = this.#env.clock.now(),
    options: CycleOptions = {},
  ): Promise<CycleOutcome | null> {
    if (!Array.isArray(ops)) throw badRequest("a JSON Patch must be an array of operations");
    return this.#run("patch", at, (cycle) => cycle.applyPatch(ops), options);
  }

  /** Evaluates stale lazy derivations of a state (not a commit). */
  async #materialize(state: ModelState, everything: boolean): Promise<ModelState> {
    const hasLazy = this.model.graph.derivedOrder.some((d) => d.lazy);
    if (!hasLazy || (!everything && state.stale.size === 0)) return state;
    const stale = everything
      ? new Set(this.model.graph.derivedOrder.filter((d) => d.lazy).map((d) => d.key))
      : state.stale;
    const cycle = new Cycle(this.model, { ...state, stale }, this.#env.config, "init", this.#env.clock.now());
    await cycle.materializeLazy();
    return { doc: cycle.doc, meta: state.meta, stale: new Set(), aggregates: state.aggregates };
  }

  /** The merged document, lazy derivations evaluated; `at` reads retained history. */
  async readState(at?: string): Promise<Json> {
    if (at !== undefined) {
      const when = parseInstant(at, "at");
      const entry = this.#retained().findLast((h) => h.at <= when);
      if (!entry) throw notFound(`No history for model '${this.model.id}' at or before ${at}`);
      return (await this.#materialize(entry.state, true)).doc;
    }
    const before = this.#state;
    const fresh = await this.#materialize(before, false);
    if (fresh !== before && this.#state === before) this.#state = fresh;
    return fresh.doc;
  }

  /** One field of the merged document; 404 when absent. */
  async readField(address: string): Promise<Json> {
    const path = resolveAddress(address);
    const value = getAt(await this.readState(), path);
    if (value === undefined) {
      throw notFound(`Field ${formatPath(path)} is absent in model '${this.model.id}'`);
    }
    return value;
  }

  /** Commit timestamps of retained history, ISO-8601, chronological. */
  historyTimestamps(): string[] {
    return this.#retained().map((h) => formatInstant(h.at));
  }

  /** The retained history states (for blob garbage collection and persistence). */
  get history(): readonly HistoryEntry[] {
    return this.#retained();
  }

  /**
   * The retained history after fewer than `historyMaxEntries` entries no
   * longer retained (`undefined`): for a reader of its newest
   * `historyMaxEntries - 1` entries (a commit's checkpoint), read without
   * taking the others out first.
   */
  get historyTail(): readonly (HistoryEntry | undefined)[] {
    return this.#history;
  }

  /** The retained history, the entries no longer retained taken out of the list. */
  #retained(): HistoryEntry[] {
    if (this.#dropped) {
      this.#history.splice(0, this.#dropped);
      this.#dropped = 0;
    }
    return this.#history as HistoryEntry[];
  }

  /**
   * Effective schema of a field: the static fragment with live meta values
   * overlaid under their property names; a derived field shows `readOnly: true`.
   */
  effectiveSchema(address: string): JsonObject {
    const path = resolveAddress(address);
    const schema: JsonObject = { ...this.model.schema.fragmentAt(path) };
    if (targetHolding(this.model.derivedTargets, path) !== undefined) {
      schema.readOnly = true;
    }
    const prefix = `${formatPath(path)}#`;
    for (const [key, value] of this.#state.meta) {
      if (key.startsWith(prefix)) schema[metaPropertyName(key.slice(prefix.length))] = value;
    }
    return cloneJson(schema);
  }

  /**
   * Trace records of a field, of one of its meta values (`<address>#<property>`), of `$constraint:<id>` or
   * `$effect:<id>`; a 404 naming the target when the model has no such field, constraint or effect, as for an
   * unknown model: an empty answer would read as "not computed yet". A field it has: one the schema admits
   * (declared, or under a free-form object), derived, held by the document, a meta derivation's target or a
   * node's key (a meta derivation's `<address>#<property>`).
   */
  explain(address: string, limit?: number): TraceRecord[] {
    const { id, graph, schema, derivedTargets } = this.model;
    const { doc } = this.#state;
    // `$constraint:<id>` and `$effect:<id>` are their nodes' keys; a field's address is resolved first.
    const entry = /^\$[ce]/.test(address);
    const hash = metaHashAt(address);
    const path = entry ? [] : resolveAddress(hash < 0 ? address : address.slice(0, hash));
    const key = entry ? address : formatPath(path) + (hash < 0 ? "" : address.slice(hash));
    // Only a meta key names metadata: another word (`readOnly`, `toString`) would answer [] as if not computed yet.
    const property = entry || hash < 0 ? null : address.slice(hash + 1);
    if (property !== null && !META_KEYS.includes(property)) {
      throw notFound(
        `Nothing to explain at ${key}: '${property}' is no meta property (${META_KEYS.join(", ")})`,
      );
    }
    // A field only a meta derivation targets is one the model has, though nothing may trace its value.
    const known = (node: CompiledNode) =>
      node.key === key || !entry && node.kind === "META" && patternMatches(node.target, path);
    const missing = entry ? null : undeclared(schema, path);
    if (
      !graph.nodes.some(known) &&
      (entry || missing && targetHolding(derivedTargets, path) === undefined &&
          !expandPattern(doc, path).some((at) => getAt(doc, at) !== undefined))
    ) {
      // The nearest of the entries' keys and the names declared beside the unknown field.
      const near = graph.nodes.map((node) => node.key)
        .concat(missing?.names.map((name) => formatPath([...path.slice(0, missing.at), name])) ?? []);
      throw notFound(
        `Nothing to explain at ${key}: model '${id}' has no such field, constraint or effect` +
          didYouMean(key, near),
      );
    }
    return cloneJson(this.#traces.find(key, limit));
  }

  /** An immutable copy of state: base document, derived and meta caches. */
  async snapshot(): Promise<Snapshot> {
    const doc = await this.readState();
    const base = new DocumentDraft(doc);
    const derivedCache: Record<string, Json> = {};
    const derivedPaths: Segment[][] = [];
    for (const { target } of this.model.derivedTargets) {
      for (const path of expandPattern(doc, target)) {
        const value = getAt(doc, path);
        if (value === undefined) continue;
        derivedCache[formatPath(path)] = cloneJson(value);
        derivedPaths.push(path);
      }
    }
    for (const path of derivedPaths) base.delete(path);
    return {
      modelId: this.model.id,
      modelVersion: this.model.version,
      baseDoc: cloneJson(base.root),
      derivedCache,
      metaCache: Object.fromEntries(cloneJson([...this.#state.meta])),
    };
  }

  /**
   * Restores a snapshot: its base document is re-derived under this model
   * (every eager derivation and meta value computed, lazy ones stale, no
   * effect fired), as a creation or evolution is; the snapshot's caches are
   * not read, since they may belong to another spec version. A value the base
   * document holds where this model derives (a field an evolution has since
   * made derived) is dropped; the rest must pass the schema, completeness
   * aside as for an evolution's carried state (422 naming each offending
   * value's path). Every constraint is checked, none refuses it (as after an evolution, the next
   * write touching what one reads is held to it): `broken` lists those the
   * restored state fails, either policy, then each live meta bound (a meta
   * derivation's `maximum`, `required`, …) a restored value breaks, flagged as
   * `$.path#keyword` (the next write of it is held to it). History and traces are cleared, the
   * restore's own evaluations then traced. Not audited. `admitGrowth` is told
   * the bytes the restored document adds to `baseDoc` before anything is
   * replaced, and throws to refuse them.
   */
  async restore(
    input: unknown,
    admitGrowth: (bytes: number) => void = () => {},
  ): Promise<{ state: ModelState; broken: ConstraintViolation[] }> {
    const snapshot = checkSnapshot(input, this.model.id);
    // The live derivation computes these; the draft copies what it changes, so the snapshot stays as given.
    const base = new DocumentDraft(snapshot.baseDoc);
    for (const { target } of this.model.derivedTargets) {
      for (const path of expandPattern(base.root, target)) base.delete(path);
    }
    const violations = strandedValues(this.model, base.root);
    if (violations.length) {
      throw unprocessable(
        `Snapshot base document violates the schema: ${describeViolations(shortened(violations))}`,
      );
    }
    const outcome = await derive(
      this.model,
      this.#env,
      { doc: cloneJson(base.root) },
      this.#env.clock.now(),
      new Set(),
      true,
    );
    admitGrowth(base.growth + outcome.growth);
    this.replaceState(outcome.state, { clearHistory: true });
    this.#traces.push(computedTraces(outcome.traces));
    const broken = [...outcome.rollback, ...outcome.result.flaggedConstraints];
    // Live bounds (a meta derivation's maximum, required, …) the restored values break: flagged, as constraints.
    for (const v of checkMetaOverlay({ meta: outcome.state.meta, model: this.model }, [], base.root, "$")) {
      broken.push({ constraintId: `${v.path}#${v.keyword}`, message: v.message, policy: "flag" });
    }
    return { state: outcome.state, broken };
  }
}

/**
 * Evaluates a document from nothing under `model` (creation, evolution,
 * restore): defaults fill the containers in `seed.created`, then every eager
 * derivation and meta value is computed. Constraints are checked only when
 * `check` (a restore, to tell which the state breaks), never enforced: there
 * is nothing to roll back to. `effects`: those that may fire (all when absent).
 */
async function derive(
  model: CompiledModel,
  env: RuntimeEnv,
  seed: { doc: Json; created?: CreatedContainers },
  at: number,
  effects?: ReadonlySet<string>,
  check = false,
): Promise<CycleOutcome> {
  const cycle = new Cycle(
    model,
    { doc: seed.doc, meta: new Map(), stale: new Set() },
    env.config,
    "init",
    at,
    effects,
    {
      timeScale: Math.max(1, model.graph.nodes.length / INIT_EXPRESSIONS_PER_DEADLINE),
    },
  );
  cycle.markCreated(seed.created ?? []);
  cycle.markEverything();
  return await cycle.settle({ enforceConstraints: check, traceLimit: env.config.traceBufferSize });
}

/** Parses an address for reads: canonical, or unrooted/legacy forms canonicalised. */
export function resolveAddress(address: string): Segment[] {
  const path = canonicalizePath(address);
  if (typeof path === "string") throw badRequest(path);
  return path;
}

function checkSnapshot(input: unknown, modelId: string): Snapshot {
  if (!isObject(input)) throw badRequest("a snapshot must be a JSON object");
  const s = input as unknown as Snapshot;
  if (s.modelId !== undefined && s.modelId !== modelId) {
    throw unprocessable(`Snapshot belongs to model '${s.modelId}', not '${modelId}'`);
  }
  if (!isObject(s.baseDoc)) throw unprocessable("Snapshot baseDoc must be a JSON object");
  if (s.derivedCache !== undefined && !isObject(s.derivedCache)) {
    throw unprocessable("Snapshot derivedCache must be an object of address to value");
  }
  if (s.metaCache !== undefined && !isObject(s.metaCache)) {
    throw unprocessable("Snapshot metaCache must be an object of 'address#property' to value");
  }
  return { ...s, derivedCache: s.derivedCache ?? {}, metaCache: s.metaCache ?? {} };
}
