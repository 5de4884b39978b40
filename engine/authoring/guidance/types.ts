/**
 * The shape of a domain guidance topic: a worked JSONata pattern as a spec
 * fragment, with a sample document and what the engine makes of it.
 *
 * @module
 */
import type { Json, JsonObject } from "../../json/value.ts";
import type { Constraint, Derivation, MetaDerivation } from "../../model/types.ts";

/** The part of a spec a pattern contributes. */
export interface SpecFragment {
  constants?: Record<string, Json>;
  derivations?: Derivation[];
  metaDerivations?: MetaDerivation[];
  constraints?: Constraint[];
}

/** A sample run of a fragment. */
export interface GuidanceSample {
  /** The base document, written as one mutation (each top-level member at `$.<member>`). */
  input: JsonObject;
  /**
   * Values of the merged state after the mutation, by address; `{$meta: {...}}`
   * asserts meta values (camelCase property names), and `null` means absent.
   */
  expected: Record<string, Json>;
  /** Ids of the (flag) constraints the sample violates, in spec order; none when absent. */
  flagged?: string[];
}

/** One topic of `get_domain_guidance`. */
export interface GuidanceTopic {
  id: string;
  title: string;
  /** When the pattern is the right tool. */
  whenToUse: string;
  fragment: SpecFragment;
  sample: GuidanceSample;
  /** Pitfalls and variations. */
  notes: string[];
}
