/**
 * The status document an effect keeps at its `statusPath` (SPEC.md "Effect
 * status phases"): `{phase, key, at, error}`. The runtime writes it as the
 * effect moves through its phases; the spec compiler checks that the schema
 * accepts it where it goes.
 *
 * @module
 */
import type { Json } from "../json/value.ts";

/** Every phase, in the order an effect may pass through them. */
export const EFFECT_PHASES = ["pending", "in_flight", "applied", "failed", "cancelled", "blocked"] as const;

/** The phase of a status document. */
export type EffectPhase = typeof EFFECT_PHASES[number];

/** The status document an effect keeps at its `statusPath`. */
export interface StatusDocument {
  phase: EffectPhase;
  /** The effect's `dedupeKey` value when it fired (null without one, and once cancelled or blocked). */
  key: Json;
  /** ISO-8601 instant of the phase change. */
  at: string;
  /**
   * Why it failed or waits (`failed`, `blocked`), the failed attempt while a retry waits (`in_flight`), a
   * warning of an answer not folded back (`applied`), else null.
   */
  error: string | null;
}

/** A status document as a JSON value. */
export function statusDocument(phase: EffectPhase, key: Json, at: number, error: string | null = null): Json {
  return { phase, key, at: new Date(at).toISOString(), error };
}
