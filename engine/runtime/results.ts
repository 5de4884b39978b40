/**
 * What a mutation cycle works on and hands back: the committed state it starts
 * from, the writes it accepts (RFC 6902 operations), and its outcome — the
 * public mutation result, effect requests as data, and the rollback verdict.
 *
 * @module
 */
import type { ConstraintViolation } from "../errors.ts";
import type { Json } from "../json/value.ts";
import type { Effect } from "../model/types.ts";
import type { TraceRecord } from "./traces.ts";

/** The committed state of a model. Never modified; a cycle produces a new one. */
export interface ModelState {
  /** The merged document: base fields with derived values spliced in. */
  readonly doc: Json;
  /** Meta cache: `$.path#property` -> value. */
  readonly meta: ReadonlyMap<string, Json>;
  /** Keys of lazy derivations whose values are stale. */
  readonly stale: ReadonlySet<string>;
}

/** Who wrote: decides audit source and which checks apply. */
export type WriteSource = "client" | "patch" | "foldback" | "init";

/** An RFC 6902 operation. */
export interface PatchOperation {
  op: string;
  path: string;
  value?: Json;
  from?: string;
}

/** A caller effect that fired. */
export interface DispatchedEffect {
  effectId: string;
  emit: Json;
  payload: Json;
}

/** A non-caller effect that fired, for an executor. */
export interface EffectRequest {
  effectId: string;
  executor: string;
  definition: Effect;
}

/** The result of a committed mutation (SPEC.md "MutationResponse"). */
export interface MutationResult {
  success: true;
  mutatedPaths: string[];
  derivedUpdated: string[];
  metaUpdated: string[];
  flaggedConstraints: ConstraintViolation[];
  dispatchedEffects: DispatchedEffect[];
  traces: TraceRecord[];
}

/** What a settled cycle produced. */
export interface CycleOutcome {
  state: ModelState;
  result: MutationResult;
  effectRequests: EffectRequest[];
  /** Every trace of the cycle (the result carries at most the ring's capacity). */
  traces: TraceRecord[];
  /** Violated rollback constraints: non-empty means the cycle must not commit. */
  rollback: ConstraintViolation[];
  /** Approximate JSON bytes the cycle added to the document (negative when it shrank it). */
  growth: number;
}
