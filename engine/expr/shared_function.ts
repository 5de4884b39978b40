/**
 * Functions one evaluation defines and other evaluations call: a model's
 * library is evaluated once, and its function exports are bound into every
 * expression of the model.
 *
 * A JSONata function keeps the frame it was defined in, and through it the
 * root frame of the evaluation that defined it: that evaluation's guard
 * (deadline, memory budget), depth count, sequence limit and regex engine.
 * Bound as it is, a library function would run under the library's long
 * expired guard and count its depth there for every caller at once. So each
 * evaluation gets its own copy of every shared function it reaches: the same
 * parameters and body, in a frame that reads the defining frame's variables
 * (functions among them copied the same way) but whose root is the calling
 * evaluation's own (recorded by the guard at its first step).
 *
 * @module
 */
import type { EvaluationGuard, Frame, RootFrame } from "./guard.ts";

/** A parsed JSONata signature. */
export interface Signature {
  definition: string;
  validate(args: unknown[], context: unknown): unknown[];
}

/** A function defined in JSONata (`function($x) {...}`, or a partial application). */
interface Lambda {
  _jsonata_lambda: true;
  input: unknown;
  environment: Frame;
  arguments?: { value: string }[];
  signature?: Signature;
  body: unknown;
  thunk?: boolean;
  [ORIGIN]?: Lambda;
}

/** A native function (a built-in, or a host function bound into the evaluation). */
interface NativeFunction {
  _jsonata_function: true;
  signature?: Signature;
}

/** The library-defined function a per-evaluation copy was made from. */
const ORIGIN = Symbol("shared function origin");

function isLambda(value: unknown): value is Lambda {
  return typeof value === "object" && value !== null && (value as Lambda)._jsonata_lambda === true;
}

function isNative(value: unknown): value is NativeFunction {
  return typeof value === "object" && value !== null &&
    (value as NativeFunction)._jsonata_function === true;
}

/** Whether a value JSONata produced is a function (defined in JSONata, or native). */
export function isFunctionValue(value: unknown): boolean {
  return isLambda(value) || isNative(value);
}

/** A function value of one evaluation, to be bound into others. */
export class SharedFunction {
  readonly #fn: Lambda | NativeFunction;

  /** `fn` is a function value of a finished evaluation; `signature`, when given, replaces its own. */
  constructor(fn: unknown, signature?: Signature) {
    if (!isLambda(fn) && !isNative(fn)) throw new TypeError("not a JSONata function");
    this.#fn = signature ? { ...fn, signature } : fn;
  }

  /** The signature (`<n-n:n>`), when the function declares one. */
  get signature(): string | undefined {
    return this.#fn.signature?.definition;
  }

  /**
   * The number of arguments it takes; undefined when that varies (optional or
   * repeated parameters in its signature) or is not known (a native function).
   */
  get arity(): number | undefined {
    if (!isLambda(this.#fn)) return undefined;
    const params = /^<([^:>]*)/.exec(this.signature ?? "")?.[1] ?? "";
    return /[?+-]/.test(params) ? undefined : (this.#fn.arguments ?? []).length;
  }

  /** The function as the evaluation guarded by `guard` binds it. */
  forEvaluation(guard: EvaluationGuard): unknown {
    return isLambda(this.#fn) ? copyFor(guard, this.#fn) : this.#fn;
  }
}

/** Per evaluation, the copies made so far (by origin). */
const COPIES = new WeakMap<EvaluationGuard, Map<Lambda, Lambda>>();

/** The copy of `lambda` for the evaluation guarded by `guard` (one per evaluation and function). */
function copyFor(guard: EvaluationGuard, lambda: Lambda): Lambda {
  const origin = lambda[ORIGIN] ?? lambda;
  let copies = COPIES.get(guard);
  if (!copies) COPIES.set(guard, copies = new Map());
  const existing = copies.get(origin);
  if (existing) return existing;
  const defining = origin.environment;
  const own = new Map<string | symbol, unknown>();
  const root = (): RootFrame => {
    if (!guard.root) throw new Error("a shared function was called before its evaluation started");
    return guard.root;
  };
  const frame: Frame & Record<string, unknown> = {
    bind: (name, value) => own.set(name, value),
    lookup: (name) => {
      if (own.has(name)) return own.get(name);
      const value = defining.lookup(name);
      return isLambda(value) ? copyFor(guard, value) : value;
    },
    get base() {
      return root();
    },
    get timestamp() {
      return root().timestamp;
    },
    get async() {
      return root().async;
    },
    get isParallelCall() {
      return root().isParallelCall;
    },
    get global() {
      return root().global;
    },
  };
  const copy: Lambda = {
    _jsonata_lambda: true,
    input: origin.input,
    environment: frame,
    arguments: origin.arguments,
    signature: origin.signature,
    body: origin.body,
    [ORIGIN]: origin,
  };
  copies.set(origin, copy);
  return copy;
}

/** A copy of `bindings` as one evaluation binds them: each {@link SharedFunction} as that evaluation's copy. */
export function bindShared(
  bindings: Record<string, unknown> | undefined,
  guard: EvaluationGuard,
): Record<string, unknown> {
  const bound: Record<string, unknown> = { ...bindings };
  for (const [name, value] of Object.entries(bound)) {
    if (value instanceof SharedFunction) bound[name] = value.forEvaluation(guard);
  }
  return bound;
}
