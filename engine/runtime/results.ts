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
import type { AggregateStore } from "./aggregate/incremental.ts";

/** The committed state of a model. Never modified; a cycle produces a new one. */
export interface ModelState {
  /** The merged document: base fields with derived values spliced in. */
  readonly doc: Json;
  /** Meta cache: `$.path#property` -> value. */
  readonly meta: ReadonlyMap<string, Json>;
  /** Keys of lazy derivations whose values are stale. */
  readonly stale: ReadonlySet<string>;
  /** The runtime's aggregate indexes (`aggregate/incremental.ts`), carried from state to state. */
  readonly aggregates?: AggregateStore;
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

/** One outbound HTTP request of a server effect, resolved when the effect fired. */
export interface HttpRequestSpec {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body: a JSON value (sent as JSON) or a string (sent as text); absent: none. */
  body?: Json;
  /** Fan-out descriptors: their own fold-back (`set`: address -> JSONata with `$response`, `$status`). */
  set?: Record<string, string>;
  /** Fan-out descriptors: their own status document. */
  statusPath?: string;
  /** Fan-out descriptors: their own key, stored in their status document. */
  dedupeKey?: Json;
}

/** What an executor is asked to do, resolved against the state the effect fired in. */
export type EffectWork =
  /**
   * `fanOut`: the requests of a `requests` expression, each with one attempt and
   * its own outcome in `$response`'s list, however many it yielded (even one).
   */
  | { type: "http"; requests: HttpRequestSpec[]; fanOut?: boolean }
  | { type: "timer"; fireAt: number }
  | { type: "llm"; prompt: string; responseSchema: Json }
  /** A link to another model: write `body` at `path`, or read `read`. */
  | { type: "link"; ref: string; path: string | null; read: string | null; watch: boolean; body: Json }
  /** An operator-installed kind: the effect as declared, and the merged document it fired in. */
  | { type: "plugin"; definition: Json; document: Json }
  /** Nothing can be sent (a server effect without request, a request that failed to resolve). */
  | { type: "invalid"; error: string };

/** A non-caller effect that fired, for an executor. */
export interface EffectRequest {
  effectId: string;
  executor: string;
  /** The value of `dedupeKey` when it fired (null without one). */
  key: Json;
  work: EffectWork;
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
  /** JSON bytes the cycle added to the document, exactly (negative when it shrank it). */
  growth: number;
}
