/**
 * One mutation cycle, all-or-nothing, in the order of SPEC.md: validate every
 * written value against the effective schema (`write_checks.ts`), apply it (or a
 * JSON Patch, `patch.ts`), fill defaults into new containers (`defaults.ts`),
 * evaluate the derivations and meta derivations the changes touched
 * (`derive.ts`), check constraints (`constraints.ts`) and collect effects as
 * data (`effects.ts`); the caller commits the resulting state or drops it.
 *
 * @module
 */
import type { EngineConfig } from "../config.ts";
import { type ConstraintViolation, type SchemaViolation, schemaViolation, shortened } from "../errors.ts";
import { DirtySet } from "../graph/dirty.ts";
import { formatPath, type Segment } from "../json/path.ts";
import type { Json } from "../json/value.ts";
import type { CompiledModel } from "../model/compile.ts";
import { checkConstraints } from "./constraints.ts";
import { type CycleLimits, CycleState } from "./cycle_state.ts";
import { applyDefaults } from "./defaults.ts";
import { derive, deriveMetas, materializeLazy } from "./derive.ts";
import { collectEffects } from "./effects.ts";
import { applyPatch } from "./patch.ts";
import type {
  CycleOutcome,
  DispatchedEffect,
  EffectRequest,
  ModelState,
  PatchOperation,
  WriteSource,
} from "./results.ts";
import { runSteps, type Steps } from "./steps.ts";
import { checkEnclosing, checkIndexLimit, checkWrite } from "./write_checks.ts";

/** Rounds of status writes and what they touch, at most (a status document read by another effect's trigger). */
const EFFECT_ROUNDS = 4;

/** A mutation cycle over one model's state. */
export class Cycle {
  readonly #state: CycleState;
  readonly #effects: ReadonlySet<string> | undefined;

  /**
   * `now`: the cycle's instant, what `$now()` answers (the commit time of a
   * write). `effects`: when given, only these effects may fire.
   */
  constructor(
    model: CompiledModel,
    state: ModelState,
    config: EngineConfig,
    source: WriteSource,
    now: number,
    effects?: ReadonlySet<string>,
    limits?: CycleLimits,
  ) {
    this.#state = new CycleState(model, state, config, source, now, limits);
    this.#effects = effects;
  }

  /** The document as the cycle currently sees it. */
  get doc(): Json {
    return this.#state.draft.root;
  }

  /** True when the cycle changed nothing. */
  get unchanged(): boolean {
    return this.#state.dirty.empty;
  }

  /**
   * Validates and applies a flat mutation in key order (each path with its formatted address when the
   * caller has it), so a later key sees the
   * containers and array slots an earlier one creates. Every violation is collected;
   * after the first one nothing more is applied and the cycle's draft is dropped, so
   * the committed state never sees a write of a refused mutation.
   */
  applyMutations(entries: [path: Segment[], value: Json, address?: string][]): void {
    const state = this.#state;
    const violations: SchemaViolation[] = [];
    for (const [path] of entries) checkIndexLimit(state.config, path);
    for (const [path, value, known] of entries) {
      const address = known ?? formatPath(path);
      violations.push(...checkWrite(state, path, value, address));
      if (violations.length) continue;
      state.draft.set(path, value, state.created);
      state.dirty.add(path);
      state.mutated.add(address);
    }
    if (!violations.length) violations.push(...checkEnclosing(state, entries.map(([path]) => path)));
    if (violations.length) throw schemaViolation(violations);
  }

  /** Validates and applies an RFC 6902 patch, operation by operation. */
  applyPatch(ops: PatchOperation[]): void {
    applyPatch(this.#state, ops);
  }

  /** Marks the whole document as changed (model creation, evolution, restore). */
  markEverything(): void {
    this.#state.dirty.add([]);
  }

  /** Records containers as newly created (the root of a new model, what a backfill made): defaults fill them. */
  markCreated(paths: Segment[][]): void {
    this.#state.created.push(...paths);
  }

  /**
   * Fires the effects the changes touched. An effect that fires writes its
   * pending status document; what reads those documents (derivations, metas,
   * other effects' triggers) is brought up to date in a further round.
   */
  *#fireEffects(): Steps<
    { dispatched: DispatchedEffect[]; requests: EffectRequest[]; statusChanges: DirtySet | null }
  > {
    const state = this.#state;
    const dispatched: DispatchedEffect[] = [];
    const requests: EffectRequest[] = [];
    const fired = new Set<string>();
    const changes = state.dirty;
    let statusChanges: DirtySet | null = null;
    for (let round = 0; round < EFFECT_ROUNDS; round++) {
      const out = yield* collectEffects(state, fired, this.#effects);
      dispatched.push(...out.dispatched);
      requests.push(...out.requests);
      for (const effect of [...out.dispatched, ...out.requests]) fired.add(effect.effectId);
      if (!out.statusWrites.length) break;
      // Only what the status documents touched is evaluated again; the cycle's changes keep every path.
      state.dirty = new DirtySet();
      for (const path of out.statusWrites) {
        state.mutated.add(formatPath(path));
        state.dirty.add(path);
        changes.add(path);
      }
      yield* derive(state);
      yield* deriveMetas(state);
      statusChanges ??= new DirtySet();
      for (const { path, shift } of state.dirty.paths) {
        changes.add(path, shift);
        statusChanges.add(path, shift);
      }
    }
    state.dirty = changes;
    return { dispatched, requests, statusChanges };
  }

  /** Evaluates every stale lazy derivation (before a read); synchronously when no evaluation had to wait. */
  materializeLazy(): void | Promise<void> {
    return runSteps(materializeLazy(this.#state));
  }

  /**
   * Runs everything after the writes and returns the outcome (commit is the
   * caller's): at once when no evaluation had to wait, else its promise.
   */
  settle(options: { enforceConstraints: boolean; traceLimit: number }): CycleOutcome | Promise<CycleOutcome> {
    return runSteps(this.#settle(options));
  }

  *#settle(options: { enforceConstraints: boolean; traceLimit: number }): Steps<CycleOutcome> {
    const state = this.#state;
    const { metas, constraints, effects } = state.model.graph;
    // A job with nothing to look at is not started: each costs a generator, and most writes need few.
    if (state.created.length) yield* applyDefaults(state);
    yield* derive(state);
    if (metas.length) yield* deriveMetas(state);
    const enforced = options.enforceConstraints && constraints.length > 0;
    const none = (): { rollback: ConstraintViolation[]; flagged: ConstraintViolation[] } => ({
      rollback: [],
      flagged: [],
    });
    const { rollback, flagged } = enforced ? yield* checkConstraints(state) : none();
    const { dispatched, requests, statusChanges } = rollback.length || !effects.length
      ? { dispatched: [], requests: [], statusChanges: null }
      : yield* this.#fireEffects();
    if (statusChanges) {
      // Constraints reading the status documents just written.
      const changes = state.dirty;
      state.dirty = statusChanges;
      const more = enforced ? yield* checkConstraints(state, true) : none();
      state.dirty = changes;
      const seen = new Set([...rollback, ...flagged].map((v) => v.constraintId));
      rollback.push(...more.rollback.filter((v) => !seen.has(v.constraintId)));
      flagged.push(...more.flagged.filter((v) => !seen.has(v.constraintId)));
    }
    const traces = state.traces;
    return {
      state: { doc: state.draft.root, meta: state.meta, stale: state.stale, aggregates: state.aggregates },
      rollback,
      growth: state.draft.growth,
      effectRequests: requests,
      traces,
      result: {
        success: true,
        mutatedPaths: [...state.mutated],
        derivedUpdated: [...state.derived],
        metaUpdated: [...state.metaUpdated],
        // Shortened as a refused constraint's are: a hostile id or message would come back whole on every write.
        flaggedConstraints: shortened(flagged),
        dispatchedEffects: dispatched,
        traces: traces.length > options.traceLimit
          ? traces.slice(traces.length - options.traceLimit)
          : traces,
      },
    };
  }
}
