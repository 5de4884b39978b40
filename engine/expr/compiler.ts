/**
 * JSONata compilation behind a bounded LRU cache, and guarded evaluation: a
 * deadline checked at every step (with yields to the event loop, so a long
 * evaluation never stalls other work), a memory budget, the sequence and depth
 * limits, size-guarded builtins and linear-time regular expressions, so a
 * hostile expression fails its write cleanly (see `guard.ts`, `builtins.ts`,
 * `regex_engine.ts`).
 *
 * @module
 */
import jsonata from "jsonata";
import type { EngineConfig } from "../config.ts";
import { LruCache } from "./lru.ts";
import { type Json, toPlainJson } from "../json/value.ts";
import { guardedBuiltins } from "./builtins.ts";
import { entryHook, EvaluationGuard, exitHook, GUARD_BINDING } from "./guard.ts";
import { checkRegexLiterals, re2RegexEngine } from "./regex_engine.ts";
import { closureCompiler } from "./closures.ts";
import { bindShared } from "./shared_function.ts";
import { restoreExtended } from "./group_extension.ts";
import { shortMessage } from "../quoted.ts";

/**
 * A JSONata AST node. The library's published typings miss several node kinds
 * (`path`, `bind`, `apply`, `sort`, `filter`), so the shape is kept open here.
 */
export interface AstNode {
  type: string;
  value?: unknown;
  position?: number;
  [member: string]: unknown;
}

/** How long an evaluation may take, and what it reports on the way. */
export interface EvaluationOptions {
  /** Epoch ms after which the evaluation fails; default: start + `timeoutMs`. */
  deadline?: number;
  /**
   * Called after every step with the step's node and a lookup of the variables
   * visible where it ran, raw (functions as JSONata holds them): how a
   * library's exports are read at the end of its `define`.
   */
  observe?: (step: AstNode, lookup: (name: string) => unknown) => void;
}

/** A compiled expression. */
export interface CompiledExpression {
  readonly source: string;
  readonly ast: AstNode;
  /**
   * Evaluates against `input` with extra variable bindings (a `SharedFunction`
   * is bound as this evaluation's own copy); the result is plain JSON.
   */
  evaluate(
    input: unknown,
    bindings?: Record<string, unknown>,
    options?: EvaluationOptions,
  ): Promise<Json | undefined>;
  /**
   * As {@link evaluate}, answering synchronously when a compiled closure gives
   * the result (a failure then throws at once); an evaluation the interpreter
   * takes over is a promise, as from {@link evaluate}.
   */
  evaluateNow(
    input: unknown,
    bindings?: Record<string, unknown>,
    options?: EvaluationOptions,
  ): Json | undefined | Promise<Json | undefined>;
}

/**
 * A compile or evaluation error with JSONata's code and position. Its message
 * is {@link shortMessage}'s: jsonata-js quotes operands, keys and tokens whole
 * (D1002, T2009, T1003, D1009, T2007, S0201: 100 KB of a document's string),
 * and the message lands in every trace, audit record and error body.
 */
export class ExpressionError extends Error {
  readonly code?: string;
  readonly position?: number;
  constructor(message: string, code?: string, position?: number) {
    super(shortMessage(message));
    this.name = "ExpressionError";
    this.code = code;
    this.position = position;
  }
}

interface JsonataFailure {
  code?: string;
  value?: unknown;
  position?: number;
  message?: string;
  token?: string;
}

/** Turns a JSONata failure (a plain object) into an {@link ExpressionError}. */
export function toExpressionError(err: unknown): ExpressionError {
  if (err instanceof ExpressionError) return err;
  // The engine's own limits (a nested result, a string V8 cannot build) keep their message; a stack V8 ran out
  // of is an expression nested past what parsing or evaluating it can hold.
  if (err instanceof RangeError) {
    return new ExpressionError(
      `${/call stack/.test(err.message) ? "Nested too deeply: " : ""}${err.message}`,
      "U1002",
    );
  }
  const e = (err ?? {}) as JsonataFailure;
  const where = typeof e.position === "number" ? ` (position ${e.position})` : "";
  const code = e.code ? `${e.code}: ` : "";
  // jsonata-js words D1011 for recursion; plain nesting reaches the same limit, which is named.
  const limit = e.code === "D1011" && typeof e.value === "number"
    ? ` (deeper than ${e.value} steps: svc.limits.expression-max-depth)`
    : "";
  return new ExpressionError(`${code}${e.message ?? String(err)}${limit}${where}`, e.code, e.position);
}

/** Guard settings of evaluation. */
export interface CompilerOptions {
  cacheSize: number;
  /** `svc.limits.expression-timeout-ms`: the default budget of one evaluation. */
  timeoutMs: number;
  /** `svc.limits.expression-max-depth`: JSONata's evaluation depth (`stack`). */
  maxDepth: number;
  /** `svc.limits.expression-max-items`: longest sequence a step may build (range operator included). */
  maxItems?: number;
  /** `svc.limits.expression-memory-bytes`: approximate bytes of strings and sequences one evaluation may build. */
  memoryBytes?: number;
  /** `svc.limits.regex-max-input`: longest string a regular expression is applied to. */
  regexMaxInput?: number;
  /** `svc.limits.max-depth`: deepest result nesting. */
  maxResultDepth?: number;
  /** False: every evaluation by jsonata-js, none by a compiled closure (benchmarks, differential tests). */
  compiled?: boolean;
}

/** Defaults of the optional guards (the engine configuration's defaults). */
const GUARD_DEFAULTS = {
  maxItems: 200_000,
  memoryBytes: 256 * 1024 * 1024,
  regexMaxInput: 100_000,
  maxResultDepth: 128,
};

/** Compiles JSONata expressions once and keeps the most recently used ones. */
export class ExpressionCompiler {
  readonly #cache: LruCache<string, CompiledExpression>;
  readonly #options: CompilerOptions;
  /** The options with the guards' defaults filled in, merged once rather than at every compile. */
  readonly #guards: Required<CompilerOptions>;

  constructor(options: CompilerOptions) {
    this.#options = options;
    this.#guards = { ...GUARD_DEFAULTS, ...definedOf(options) } as Required<CompilerOptions>;
    this.#cache = new LruCache(options.cacheSize);
  }

  /** A compiler with every guard of an engine configuration (`svc.limits.*`). */
  static fromConfig(config: EngineConfig): ExpressionCompiler {
    return new ExpressionCompiler({
      cacheSize: config.expressionCacheSize,
      timeoutMs: config.expressionTimeoutMs,
      maxDepth: config.expressionMaxDepth,
      maxItems: config.expressionMaxItems,
      memoryBytes: config.expressionMemoryBytes,
      regexMaxInput: config.regexMaxInput,
      maxResultDepth: config.maxDepth,
    });
  }

  /** Number of compiled expressions currently cached. */
  get cachedCount(): number {
    return this.#cache.size;
  }

  /** Compiles (or fetches) an expression; throws {@link ExpressionError} on a syntax error. */
  compile(source: string): CompiledExpression {
    const cached = this.#cache.get(source);
    if (cached) return cached;
    const options = this.#guards;
    let compiled: jsonata.Expression;
    try {
      // No `stack`: jsonata-js sums the depth of concurrent branches, the guard checks each chain's (guard.ts).
      compiled = jsonata(source, { sequence: options.maxItems } as never);
    } catch (err) {
      throw toExpressionError(err);
    }
    const ast = compiled.ast() as unknown as AstNode;
    const unsupported = checkRegexLiterals(ast);
    if (unsupported) throw new ExpressionError(unsupported);
    compiled.assign(Symbol.for("jsonata.__evaluate_entry") as never, entryHook);
    compiled.assign(Symbol.for("jsonata.__evaluate_exit") as never, exitHook);
    let guardedReady: Promise<void> | null = null;
    // The compiled closure of the common subset (compiled/), tried before the interpreter.
    const closures = this.#options.compiled === false ? undefined : closureCompiler();
    const closure = closures?.compileClosure(ast, closures.compiledLimits(options)) ?? null;
    const interpret = async (
      input: unknown,
      bindings: Record<string, unknown> | undefined,
      { deadline, observe }: EvaluationOptions,
      started: number,
    ): Promise<Json | undefined> => {
      const guard = new EvaluationGuard({
        deadline: deadline ?? started + options.timeoutMs,
        memoryBytes: options.memoryBytes,
        timeoutMs: options.timeoutMs,
        maxDepth: options.maxDepth,
      });
      guard.regexEngine = re2RegexEngine(guard, options.regexMaxInput);
      if (observe) guard.observer = (step, frame) => observe(step as AstNode, (name) => frame.lookup(name));
      try {
        await (guardedReady ??= guardedBuiltins().then((builtins) => {
          for (const [name, builtin] of Object.entries(builtins)) compiled.assign(name, builtin);
        }));
        const scope = bindShared(bindings, guard);
        scope[GUARD_BINDING] = guard;
        const result = await compiled.evaluate(input, scope as never);
        restoreInputs(guard, false, input, bindings);
        return toPlainJson(result, options.maxResultDepth);
      } catch (err) {
        restoreInputs(guard, true, input, bindings);
        throw toExpressionError(namingSequenceLimit(err, options.maxItems));
      }
    };
    const entry: CompiledExpression = {
      source,
      ast,
      evaluateNow(input, bindings, evaluation = {}) {
        const started = Date.now();
        const { deadline, observe } = evaluation;
        // Past its deadline an evaluation is the interpreter's to fail; an observed one the interpreter's to step.
        const fast = closure && !observe && started <= (deadline ?? started)
          ? closure(input, bindings)
          : closures?.INTERPRET;
        if (!closures || fast === closures.INTERPRET) return interpret(input, bindings, evaluation, started);
        try {
          return toPlainJson(fast, options.maxResultDepth);
        } catch (err) {
          throw toExpressionError(err);
        }
      },
      // deno-lint-ignore require-await -- a failure of the compiled answer is a rejection too
      async evaluate(input, bindings, evaluation) {
        return entry.evaluateNow(input, bindings, evaluation);
      },
    };
    this.#cache.set(source, entry);
    return entry;
  }
}

/**
 * A D2015 failure naming the limit: jsonata-js's message gives the size the
 * range operator or `$append` asked for as "the maximum sequence length".
 */
function namingSequenceLimit(err: unknown, maxItems: number): unknown {
  const failure = err as JsonataFailure | null;
  if (failure?.code === "D2015") {
    failure.message =
      `The maximum sequence length of ${maxItems} (svc.limits.expression-max-items) was exceeded.`;
  }
  return err;
}

/** Undoes the extensions of the caller's arrays the guard could not undo on the spot (group_extension.ts). */
function restoreInputs(guard: EvaluationGuard, failed: boolean, input: unknown, bindings: unknown): void {
  if (guard.mayHaveExtended(failed)) restoreExtended([input, bindings]);
}

/** The members of `options` that are set. */
function definedOf<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}
