/**
 * Compiles the common subset of JSONata to JavaScript closures with
 * jsonata-js's exact semantics: paths (`$`, `$$`, `$parent`, `$const`, field
 * steps, expression steps, filters, `[]`), literals, arithmetic, comparison,
 * `and`/`or`, `&`, `in`, conditionals, blocks without bindings, array and
 * object constructors (grouping included), and the builtins of `functions.ts`.
 *
 * Whether an expression compiles is decided once from its AST: every node must
 * be of a supported kind and carry only members this compiler knows, so
 * anything else (lambdas, bindings, sorting, wildcards, regular expressions,
 * other variables, positional or focus binds…) is left to jsonata-js whole.
 * Each closure mirrors one `evaluate` call of jsonata-js: the node's own rule,
 * its predicates, its grouping, the guard's charge and the normalisation of a
 * sequence result. Evaluation bails (see `context.ts`) wherever jsonata-js
 * would fail, so errors and limits are always the interpreter's.
 *
 * @module
 */
import type { AstNode } from "../compiler.ts";
import { bail, type CompiledLimits, Context } from "./context.ts";
import { BUILTINS } from "./functions.ts";
import { BINARY_OPERATORS, negate } from "./operators.ts";
import {
  append,
  createSequence,
  field as fieldOf,
  isInheritedKey,
  isSequence,
  lookup,
  normalize,
  type Sequence,
  singleton,
} from "./sequence.ts";
import { isFunctionLike, toBoolean } from "./values.ts";

/** Returned when the compiled evaluation handed the expression back: evaluate it with jsonata-js. */
export const INTERPRET: unique symbol = Symbol("interpret");

/** A compiled expression: the result (before conversion to plain JSON), or {@link INTERPRET}. */
export type CompiledClosure = (
  input: unknown,
  bindings: Record<string, unknown> | undefined,
) => unknown | typeof INTERPRET;

/** A compiled node: jsonata-js's `evaluate(node, input)`. */
type Evaluator = (input: unknown, context: Context) => unknown;

/** A key-value pair of an object constructor. */
type Pair = readonly [Evaluator, Evaluator];

/** Thrown while compiling when a node is outside the subset. */
class Unsupported extends Error {}

/** The bound variables compiled expressions may read (besides `$` and `$$`). */
const VARIABLES = new Set(["const", "parent"]);

/** Members every node may carry besides its kind's own. */
const COMMON = ["type", "value", "position", "predicate", "group", "keepArray"];

/** The members each supported kind of node may carry. */
const MEMBERS: Record<string, ReadonlySet<string>> = Object.fromEntries(
  Object.entries({
    path: ["steps", "keepSingletonArray"],
    binary: ["lhs", "rhs"],
    unary: ["expression", "expressions", "lhs", "consarray"],
    name: ["stages"],
    string: ["stages"],
    number: [],
    value: [],
    condition: ["condition", "then", "else"],
    block: ["expressions", "stages"],
    function: ["procedure", "arguments", "stages"],
    variable: ["stages"],
  }).map(([kind, own]) => [kind, new Set([...COMMON, ...own])]),
);

function check(node: AstNode): void {
  const members = MEMBERS[node.type];
  if (!members) throw new Unsupported(node.type);
  for (const key of Object.keys(node)) {
    // The parser leaves some members declared but unset (a function's `name`).
    if (!members.has(key) && node[key] !== undefined) throw new Unsupported(`${node.type}.${key}`);
  }
}

/** The height of an AST (nested nodes along the deepest branch). */
function height(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let deepest = 0;
  for (const member of Object.values(value)) deepest = Math.max(deepest, height(member));
  return (Array.isArray(value) ? 0 : 1) + deepest;
}

/** Filters of a node (`predicate`) or step (`stages`): all must be filters. */
function filtersOf(list: unknown): Evaluator[] {
  if (list === undefined) return [];
  return (list as AstNode[]).map((filter) => {
    if (
      filter.type !== "filter" || Object.keys(filter).some((k) => !["type", "expr", "position"].includes(k))
    ) {
      throw new Unsupported("stage");
    }
    return compileFilter(filter.expr as AstNode);
  });
}

/** `evaluateFilter`: a numeric literal selects by index, anything else is a predicate per item. */
function compileFilter(predicate: AstNode): Evaluator {
  if (predicate.type === "number") {
    // jsonata-js takes the literal's value as an index, whatever else the node carries.
    check(predicate);
    const literal = predicate.value as number;
    return (input) => {
      const items = Array.isArray(input) ? input : singleton(input);
      let index = Math.floor(literal);
      if (index < 0) index = items.length + index;
      const item = items[index];
      if (item === undefined) return createSequence();
      return Array.isArray(item) ? item : singleton(item);
    };
  }
  const test = compileNode(predicate);
  return (input, context) => {
    const items = Array.isArray(input) ? input : singleton(input);
    const results = createSequence();
    for (let index = 0; index < items.length; index++) {
      const item = items[index];
      let res = test(item, context);
      if (isNumericValue(res)) res = [res];
      if (isArrayOfNumbers(res)) {
        for (const position of res as number[]) {
          let at = Math.floor(position);
          if (at < 0) at = items.length + at;
          if (at === index) results.push(item);
        }
      } else if (toBoolean(res)) {
        results.push(item);
      }
    }
    return results;
  };
}

function isNumericValue(value: unknown): boolean {
  if (typeof value !== "number" || Number.isNaN(value)) return false;
  if (!Number.isFinite(value)) bail();
  return true;
}

function isArrayOfNumbers(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  let all = true;
  for (let i = 0; i < value.length; i++) if (!isNumericValue(value[i])) all = false;
  return all;
}

/** `evaluateGroupExpression` without tuple streams: an object from key/value pairs over the input items. */
function compileGroup(group: AstNode): (input: unknown, context: Context) => unknown {
  const pairs: Pair[] = (group.lhs as AstNode[][]).map((
    [key, value],
  ) => [compileNode(key), compileNode(value)]);
  return (input, context) => {
    const result = Object.create(null) as Record<string, unknown>;
    const groups = Object.create(null) as Record<string, { data: unknown; index: number }>;
    let items = Array.isArray(input) ? input : singleton(input);
    // jsonata-js adds an undefined item to an empty input, so a literal object is still built.
    if (items.length === 0) items = [undefined];
    for (const item of items) {
      for (let index = 0; index < pairs.length; index++) {
        const key = pairs[index][0](item, context);
        if (key === undefined) continue;
        if (typeof key !== "string" || key === "_jsonata_lambda" || key === "_jsonata_function") bail();
        const entry = groups[key];
        if (entry === undefined) groups[key] = { data: item, index };
        else if (entry.index !== index) bail();
        else entry.data = append(entry.data, item, context.limits.maxItems);
      }
    }
    for (const key of Object.keys(groups)) {
      const entry = groups[key];
      const value = pairs[entry.index][1](entry.data, context);
      if (value !== undefined) result[key] = value;
    }
    return result;
  };
}

/** A path step: its evaluator and filters; for a plain field step, the field. */
interface Step {
  evaluate: Evaluator;
  stages: Evaluator[];
  consarray: boolean;
  field: { key: string; inherited: boolean } | null;
}

/** True for a node with no members beyond `type`, `value` and `position`. */
function isBare(node: AstNode): boolean {
  return Object.keys(node).every((key) => key === "type" || key === "value" || key === "position");
}

/** `evaluateStep`: the step over every input item, results flattened (a lone array of the last step kept whole). */
function evaluateStep(step: Step, input: unknown, context: Context, lastStep: boolean): unknown {
  const items = input as ArrayLike<unknown>;
  const field = step.field;
  // The first result is held back: a lone array result (`items`) is then copied whole.
  let sequence: Sequence | null = null;
  let first: unknown;
  // jsonata-js collects every defined result (an empty one too) in a sequence under the limit.
  let defined = 0;
  const maxItems = context.limits.maxItems;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    let res: unknown;
    if (field && !Array.isArray(item)) {
      // The field's evaluate inlined: a value of a document is never a sequence.
      res = fieldOf(item, field.key, field.inherited);
      context.exit(res);
    } else {
      res = step.evaluate(item, context);
      for (const stage of step.stages) res = stage(res, context);
    }
    if (res === undefined) continue;
    if (++defined > maxItems) bail();
    if (first === undefined) {
      first = res;
      continue;
    }
    if (sequence === null) sequence = flattenInto(createSequence(), first);
    flattenInto(sequence, res);
  }
  if (sequence !== null) {
    context.checkItems(sequence);
    return sequence;
  }
  if (first === undefined) return createSequence();
  if (!Array.isArray(first) || (first as Sequence).cons) return singleton(first);
  if (lastStep && !isSequence(first)) return first;
  if (!lastStep && first.length > 0) {
    // The next step only iterates over it: the array serves as is, no flattened copy needed.
    context.checkItems(first);
    return first;
  }
  const copy: Sequence = first.slice();
  copy.sequence = true;
  context.checkItems(copy);
  return copy;
}

/** Adds a step result to a sequence: arrays (but constructed ones) are flattened one level. */
function flattenInto(sequence: Sequence, res: unknown): Sequence {
  if (!Array.isArray(res) || (res as Sequence).cons) sequence.push(res);
  else for (let j = 0; j < res.length; j++) sequence.push(res[j]);
  return sequence;
}

/**
 * A path of field steps (after an optional variable) over single objects is the
 * nested field: jsonata-js's sequences there hold one item each, so the walk
 * needs none. Answers {@link MANY} as soon as an array (or an input sequence)
 * turns up before the last step, where the general evaluation takes over. An
 * array the last step reads (`items`) is the answer as it is, as the general
 * evaluation's last step gives it, unless it is a sequence or a constructed array.
 */
function walkFields(start: unknown, keys: readonly Step["field"][], context: Context): unknown {
  let value = start;
  for (const field of keys) {
    if (value === undefined) return undefined;
    if (Array.isArray(value)) return MANY;
    value = fieldOf(value, field!.key, field!.inherited);
    context.exit(value);
  }
  return Array.isArray(value) && (isSequence(value) || (value as Sequence).cons) ? MANY : value;
}

/** Returned by {@link walkFields} where a path meets an array. */
const MANY: unique symbol = Symbol("many");

function compilePath(node: AstNode): Evaluator {
  const steps: Step[] = (node.steps as AstNode[]).map((step) => ({
    evaluate: compileNode(step),
    stages: filtersOf(step.stages),
    consarray: step.consarray === true,
    field: step.type === "name" && isBare(step)
      ? { key: step.value as string, inherited: isInheritedKey(step.value as string) }
      : null,
  }));
  const absolute = (node.steps as AstNode[])[0].type === "variable";
  const keepSingleton = node.keepSingletonArray === true;
  const last = steps.length - 1;
  // `$parent.price`, `$const.rate`, `order.total`: a start and then fields only.
  const plain = !keepSingleton && (!absolute || steps[0].stages.length === 0) &&
    steps.slice(absolute ? 1 : 0).every((step) => step.field);
  const start = absolute ? steps[0] : null;
  const fields = steps.slice(absolute ? 1 : 0).map((step) => step.field);
  const general: Evaluator = (input, context) => {
    let inputSequence: unknown = Array.isArray(input) && !absolute ? input : singleton(input);
    let resultSequence: unknown;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i];
      resultSequence = i === 0 && step.consarray
        ? step.evaluate(inputSequence, context)
        : evaluateStep(step, inputSequence, context, i === last);
      if (resultSequence === undefined || (resultSequence as unknown[]).length === 0) break;
      inputSequence = resultSequence;
    }
    if (keepSingleton) {
      if (Array.isArray(resultSequence) && (resultSequence as Sequence).cons && !isSequence(resultSequence)) {
        resultSequence = singleton(resultSequence);
      }
      // jsonata-js also flags a document array here; the flag only ever matters on sequences.
      if (isSequence(resultSequence)) resultSequence.keepSingleton = true;
      else if (!Array.isArray(resultSequence)) bail();
    }
    return resultSequence;
  };
  if (!plain) return general;
  return (input, context) => {
    if (Array.isArray(input) && !absolute) return general(input, context);
    const value = walkFields(start ? start.evaluate(input, context) : input, fields, context);
    return value === MANY ? general(input, context) : value;
  };
}

function compileBinary(node: AstNode): Evaluator {
  const lhs = compileNode(node.lhs as AstNode);
  const rhs = compileNode(node.rhs as AstNode);
  const op = node.value as string;
  if (op === "and") return (input, context) => toBool(lhs(input, context)) && toBool(rhs(input, context));
  if (op === "or") return (input, context) => toBool(lhs(input, context)) || toBool(rhs(input, context));
  const apply = Object.hasOwn(BINARY_OPERATORS, op) ? BINARY_OPERATORS[op] : undefined;
  if (!apply) throw new Unsupported(`operator ${op}`);
  return (input, context) => apply(lhs(input, context), rhs(input, context));
}

/** `boolize`: the effective boolean value, false for nothing. */
function toBool(value: unknown): boolean {
  return toBoolean(value) ?? false;
}

function compileUnary(node: AstNode): Evaluator {
  switch (node.value) {
    case "-": {
      const operand = compileNode(node.expression as AstNode);
      return (input, context) => negate(operand(input, context));
    }
    case "[": {
      const items = (node.expressions as AstNode[]).map((item) => ({
        evaluate: compileNode(item),
        nested: item.value === "[",
      }));
      const cons = node.consarray === true;
      return (input, context) => {
        let result: unknown[] = [];
        for (const item of items) {
          const value = item.evaluate(input, context);
          if (value === undefined) continue;
          if (item.nested) result.push(value);
          else result = append(result, value, context.limits.maxItems) as unknown[];
        }
        if (cons) {
          Object.defineProperty(result, "cons", { enumerable: false, configurable: false, value: true });
        }
        return result;
      };
    }
    case "{":
      return compileGroup(node);
    default:
      throw new Unsupported(`unary ${node.value}`);
  }
}

function compileFunction(node: AstNode): Evaluator {
  const procedure = node.procedure as AstNode;
  const name = procedure.value as string;
  check(procedure);
  const builtin = procedure.type === "variable" && Object.hasOwn(BUILTINS, name) ? BUILTINS[name] : undefined;
  const args = (node.arguments as AstNode[]).map(compileNode);
  if (
    !builtin || procedure.predicate || procedure.group || procedure.stages ||
    !builtin.arities.includes(args.length)
  ) {
    throw new Unsupported(`function ${name}`);
  }
  return (input, context) => {
    // A caller's binding of the same name shadows the builtin: jsonata-js calls that instead.
    if (context.bindings !== undefined && Object.prototype.hasOwnProperty.call(context.bindings, name)) {
      bail();
    }
    const values = new Array<unknown>(args.length);
    for (let i = 0; i < args.length; i++) {
      const value = args[i](input, context);
      // jsonata-js passes an argument that looks like a function on as a closure of its own.
      if (value !== null && typeof value === "object" && isFunctionLike(value)) bail();
      values[i] = value;
    }
    return builtin.apply(values);
  };
}

function compileVariable(node: AstNode): Evaluator {
  const name = node.value as string;
  if (name === "") {
    return (input) => Array.isArray(input) && (input as Sequence).outerWrapper ? input[0] : input;
  }
  if (name === "$") return (_input, context) => context.root;
  if (!VARIABLES.has(name)) throw new Unsupported(`variable $${name}`);
  return (_input, context) => context.variable(name);
}

function compileCore(node: AstNode): Evaluator {
  switch (node.type) {
    case "path":
      return compilePath(node);
    case "binary":
      return compileBinary(node);
    case "unary":
      return compileUnary(node);
    case "name":
    case "string": {
      // A string literal as a path step is a field name (jsonata-js's parser makes it one).
      if (node.type === "string" && node.stages) throw new Unsupported("string step");
      const key = node.value as string;
      return node.type === "name" ? (input) => lookup(input, key) : () => key;
    }
    case "number":
    case "value": {
      const literal = node.value;
      return () => literal;
    }
    case "condition": {
      const condition = compileNode(node.condition as AstNode);
      const then = compileNode(node.then as AstNode);
      const otherwise = node.else === undefined ? undefined : compileNode(node.else as AstNode);
      return (input, context) =>
        toBoolean(condition(input, context)) ? then(input, context) : otherwise?.(input, context);
    }
    case "block": {
      const expressions = (node.expressions as AstNode[]).map(compileNode);
      return (input, context) => {
        let result: unknown;
        for (const expression of expressions) result = expression(input, context);
        return result;
      };
    }
    case "function":
      return compileFunction(node);
    case "variable":
      return compileVariable(node);
    default:
      throw new Unsupported(node.type);
  }
}

/** jsonata-js's `evaluate(node)`: the node's rule, predicates, grouping, the guard's charge, normalisation. */
function compileNode(node: AstNode): Evaluator {
  check(node);
  const core = compileCore(node);
  const filters = filtersOf(node.predicate);
  const group = node.type !== "path" && node.group ? compileGroup(node.group as AstNode) : null;
  const groupOfPath = node.type === "path" && node.group ? compileGroup(node.group as AstNode) : null;
  const keepArray = node.keepArray === true;
  if (!groupOfPath && !filters.length && !group) {
    return (input, context) => {
      const result = core(input, context);
      context.exit(result);
      return normalize(result, keepArray);
    };
  }
  return (input, context) => {
    let result = core(input, context);
    if (groupOfPath) result = groupOfPath(result, context);
    for (const filter of filters) result = filter(result, context);
    if (group) result = group(result, context);
    context.exit(result);
    return normalize(result, keepArray);
  };
}

/**
 * The closure of an expression, or null when the expression is outside the
 * compiled subset (or deeper than the interpreter's depth limit, whose error
 * only the interpreter gives).
 */
export function compileClosure(ast: AstNode, limits: CompiledLimits): CompiledClosure | null {
  if (height(ast) >= limits.maxDepth) return null;
  let root: Evaluator;
  try {
    root = compileNode(ast);
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
  return (input, bindings) => {
    const context = new Context(input, bindings, limits);
    // An array input is one item, as jsonata-js wraps it.
    const focus = Array.isArray(input) && !isSequence(input) ? outerWrapper(input) : input;
    try {
      return root(focus, context);
    } catch {
      return INTERPRET;
    }
  };
}

function outerWrapper(input: unknown[]): Sequence {
  const wrapper = singleton(input);
  wrapper.outerWrapper = true;
  return wrapper;
}

/** Steps of a compiled evaluation before the interpreter, which yields to the event loop, takes over. */
const MAX_STEPS = 1_000_000;

/** The guards of an expression compiler as compiled limits (unset ones: jsonata-js's defaults). */
export function compiledLimits(
  options: { maxDepth: number; maxItems?: number; memoryBytes?: number },
): CompiledLimits {
  return {
    maxDepth: options.maxDepth,
    maxItems: options.maxItems ?? Infinity,
    memoryBytes: options.memoryBytes ?? Infinity,
    maxSteps: MAX_STEPS,
  };
}
