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
import type { Json } from "../json/value.ts";
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

/**
 * A text with `{expr}` parts (a request URL or header value): literal pieces
 * and compiled expressions, in order.
 */
export type Template = (string | CompiledExpression)[];

/** A server effect's single request (`request`). */
export interface CompiledRequest {
  method: string;
  url: Template;
  headers: [string, Template][];
  /** A JSONata expression, or a literal JSON value sent as is; absent: no body. */
  body?: CompiledExpression | Json;
}

/** A server effect aimed at another model: a write-link (`path` and `body`) or a read-link (`read`). */
export interface CompiledLink {
  ref: string;
  /** Write-link: where the target receives `body`. */
  path: string | null;
  /** Read-link: the target's field read. */
  read: string | null;
  /** Read-link: re-read whenever the target commits a change there. */
  watch: boolean;
  body: CompiledExpression | null;
}

/** How a failed attempt is retried (`policy`). */
export interface EffectPolicy {
  /** One attempt's time limit. */
  timeoutMs: number;
  /** Attempts after the first. */
  retries: number;
  /** Delay before the first retry; each next one doubles, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
}

/** An effect with its expressions compiled. */
export interface CompiledEffect {
  definition: Effect;
  executor: string;
  /** `payload` compiled: a single expression, or one per member. */
  payload: CompiledExpression | Record<string, CompiledExpression> | null;
  dedupeKey: CompiledExpression | null;
  /** Where the status document `{phase, key, at, error}` is kept. */
  statusPath: Segment[] | null;
  request: CompiledRequest | null;
  /** Fan-out: JSONata yielding the request descriptors. */
  requests: CompiledExpression | null;
  /** A link to another model (`target`), with the write-link's `body`. */
  link: CompiledLink | null;
  /** `response.set`: target address and the JSONata evaluated with `$response` and `$status`. */
  responseSet: [Segment[], CompiledExpression][];
  prompt: CompiledExpression | null;
  at: CompiledExpression | null;
  afterMs: CompiledExpression | null;
  policy: EffectPolicy;
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
  /** Locations the node depends on besides what its expressions read (an effect's status document). */
  alsoReads?: Segment[][];
}
