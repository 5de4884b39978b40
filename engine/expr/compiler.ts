/**
 * JSONata compilation behind a bounded LRU cache, and guarded evaluation: a time
 * budget and a depth limit so a runaway expression fails its mutation cleanly.
 *
 * @module
 */
import jsonata from "jsonata";
import { LruCache } from "./lru.ts";
import { type Json, toPlainJson } from "../json/value.ts";
import { compileClosure, compiledLimits, INTERPRET } from "./compiled/compile.ts";

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

/** A compiled expression. */
export interface CompiledExpression {
  readonly source: string;
  readonly ast: AstNode;
  /** Evaluates against `input` with extra variable bindings; the result is plain JSON. */
  evaluate(input: unknown, bindings?: Record<string, unknown>): Promise<Json | undefined>;
}

/** A compile error with JSONata's code and position. */
export class ExpressionError extends Error {
  readonly code?: string;
  readonly position?: number;
  constructor(message: string, code?: string, position?: number) {
    super(message);
    this.name = "ExpressionError";
    this.code = code;
    this.position = position;
  }
}

interface JsonataFailure {
  code?: string;
  position?: number;
  message?: string;
  token?: string;
}

/** Turns a JSONata failure (a plain object) into an {@link ExpressionError}. */
export function toExpressionError(err: unknown): ExpressionError {
  if (err instanceof ExpressionError) return err;
  const e = (err ?? {}) as JsonataFailure;
  const where = typeof e.position === "number" ? ` (position ${e.position})` : "";
  const code = e.code ? `${e.code}: ` : "";
  return new ExpressionError(`${code}${e.message ?? String(err)}${where}`, e.code, e.position);
}

/** Guard settings of evaluation. */
export interface CompilerOptions {
  cacheSize: number;
  timeoutMs: number;
  maxDepth: number;
  /** False: every evaluation by jsonata-js, none by a compiled closure (benchmarks, differential tests). */
  compiled?: boolean;
}

/** Compiles JSONata expressions once and keeps the most recently used ones. */
export class ExpressionCompiler {
  readonly #cache: LruCache<string, CompiledExpression>;
  readonly #options: CompilerOptions;

  constructor(options: CompilerOptions) {
    this.#options = options;
    this.#cache = new LruCache(options.cacheSize);
  }

  /** Number of compiled expressions currently cached. */
  get cachedCount(): number {
    return this.#cache.size;
  }

  /** Compiles (or fetches) an expression; throws {@link ExpressionError} on a syntax error. */
  compile(source: string): CompiledExpression {
    const cached = this.#cache.get(source);
    if (cached) return cached;
    let compiled: jsonata.Expression;
    try {
      compiled = jsonata(
        source,
        { timeout: this.#options.timeoutMs, stack: this.#options.maxDepth } as never,
      );
    } catch (err) {
      throw toExpressionError(err);
    }
    const ast = compiled.ast() as unknown as AstNode;
    // The compiled closure of the common subset (compiled/compile.ts), tried before the interpreter.
    const closure = this.#options.compiled === false
      ? null
      : compileClosure(ast, compiledLimits(this.#options));
    const entry: CompiledExpression = {
      source,
      ast,
      async evaluate(input, bindings) {
        if (closure) {
          const result = closure(input, bindings);
          if (result !== INTERPRET) return toPlainJson(result);
        }
        try {
          return toPlainJson(await compiled.evaluate(input, bindings as never));
        } catch (err) {
          throw toExpressionError(err);
        }
      },
    };
    this.#cache.set(source, entry);
    return entry;
  }
}
