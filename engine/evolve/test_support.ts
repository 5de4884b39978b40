/**
 * Fixtures of the evolution tests: applying an evolution as the service does,
 * and catching the refusal of one that must be refused.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ServiceError } from "../errors.ts";
import type { ModelSpec } from "../model/types.ts";
import { applyEvolution } from "./apply.ts";
import { parseEvolution } from "./evolution.ts";

/** Applies an evolution the way the service does: shape-checked first. */
export function applyChecked(spec: ModelSpec, evolution: unknown): ModelSpec {
  return applyEvolution(spec, parseEvolution(evolution));
}

/** The error refusing an evolution of `spec` (fails the test when it applies). */
export function refusalOf(spec: ModelSpec, evolution: unknown): ServiceError {
  try {
    applyChecked(spec, evolution);
  } catch (err) {
    return err as ServiceError;
  }
  assert.fail("expected the evolution to be refused");
}
