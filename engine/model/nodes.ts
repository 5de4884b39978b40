/**
 * What the section compilers produce for the runtime: one graph node per
 * derivation, meta derivation, constraint and effect, each carrying its
 * compiled expression and only the members of its own kind; and the compiled
 * default rules.
 *
 * @module
 */
import type { CompiledExpression } from "../expr/compiler.ts";
import type { ConstraintExprNode, DerivedExprNode, EffectExprNode, MetaExprNode } from "../graph/graph.ts";
import type { Segment } from "../json/path.ts";
import type { Constraint, Effect } from "./types.ts";

/** A derivation: its expression computes the value at `target`. */
export interface DerivedNode extends DerivedExprNode {
  compiled: CompiledExpression;
  /** Evaluated on read instead of in the cycle. */
  lazy: boolean;
}

/** A meta derivation: its expression computes one property of the field at `target`. */
export interface MetaNode extends MetaExprNode {
  compiled: CompiledExpression;
  /** snake_case property name used in meta keys (`read_only`). */
  metaKey: string;
}

/** A constraint: its expression must hold. */
export interface ConstraintNode extends ConstraintExprNode {
  compiled: CompiledExpression;
  constraint: Constraint;
}

/** An effect: its trigger expression fires it. */
export interface EffectNode extends EffectExprNode {
  /** The compiled trigger. */
  compiled: CompiledExpression;
  effect: CompiledEffect;
}

/** A graph node with what the runtime needs to evaluate it. */
export type CompiledNode = DerivedNode | MetaNode | ConstraintNode | EffectNode;

/** An effect with its expressions compiled. */
export interface CompiledEffect {
  definition: Effect;
  executor: string;
  /** `payload` compiled: a single expression, or one per member. */
  payload: CompiledExpression | Record<string, CompiledExpression> | null;
}

/** A compiled default rule. */
export interface CompiledDefault {
  path: Segment[];
  compiled: CompiledExpression;
}

/** A node before its reads are known, with the expressions whose reads it depends on. */
export interface NodeDefinition {
  node: CompiledNode;
  sources: CompiledExpression[];
}
