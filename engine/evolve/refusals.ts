/**
 * The errors an evolution ends in: malformed (400), refused (422), or
 * refused because the new schema would strand state (422). A module of their
 * own so a remote caller rebuilds them (engine/operations/remote_error.ts)
 * without loading the evolution's JSON Schema, which evolution.ts compiles.
 *
 * @module
 */
import {
  describeViolations,
  type Finding,
  findingsError,
  type SchemaViolation,
  ServiceError,
  shortened,
} from "../errors.ts";
import type { Json } from "../json/value.ts";

/** A malformed evolution (400) listing every problem. */
export function invalidEvolution(findings: Finding[]): ServiceError {
  return findingsError("bad_request", "Invalid evolution", findings);
}

/** A well-formed evolution that cannot be applied to this spec (422), listing every reason. */
export function evolutionRefused(findings: Finding[]): ServiceError {
  return findingsError("validation_failed", "Evolution refused", findings);
}

/** The 422 of the state-compatibility guard, listing every stranded path. */
export function stateStranded(stranded: SchemaViolation[]): ServiceError {
  // Shortened as every refusal's violations are: a stranded value's path names the state's own keys.
  const violations = shortened(stranded);
  const paths = [...new Set(violations.map((v) => v.path))];
  return new ServiceError(
    "validation_failed",
    `Evolution refused: the new schema would strand state at ${paths.join(", ")}: ${
      describeViolations(violations)
    }`,
    { error: "State incompatible", paths, violations: violations as unknown as Json },
  );
}
