/**
 * What every section compiler shares: its host, its findings, and the two
 * semantic checks most entries need — a JSONata expression compiled through the
 * shared cache, a canonical address parsed into segments.
 *
 * The shape check (`../shape.ts`) has already judged every value against the
 * ModelSpec schema; a compiler skips what it refused (a section that is not an
 * array, an entry that is not an object, an expression that is not a non-blank
 * string) without a second finding.
 *
 * @module
 */
import type { EngineConfig } from "../../config.ts";
import type { Finding } from "../../errors.ts";
import type { CompiledExpression, ExpressionCompiler } from "../../expr/compiler.ts";
import { parseConcretePath, parsePath, type Segment } from "../../json/path.ts";
import { isObject, type JsonObject } from "../../json/value.ts";
import { ExpressionScope } from "../expression_scope.ts";
import { longAddressMessage, MAX_ID_LENGTH } from "../model_spec_schema.ts";
import type { ModelSpec } from "../types.ts";

/** What compilation needs from its host. */
export interface CompileEnv {
  compiler: ExpressionCompiler;
  config: EngineConfig;
  now: () => number;
  /** Checks of the host's effect kinds (plugins): messages about an effect of `kind`. */
  validateEffect?: (kind: string, effect: JsonObject) => string[];
}

/** One object entry of an array section. */
export interface SectionEntry {
  entry: JsonObject;
  index: number;
  /** `derivations[3]`. */
  location: string;
}

const DYNAMIC_READS = /\$lookup\s*\(/;

/** The findings of one section and the checks its compiler shares with the others. */
export class SectionContext {
  /** Findings that refuse the spec. */
  readonly errors: Finding[] = [];
  /** Findings that do not. */
  readonly warnings: Finding[] = [];
  /** The host. */
  readonly env: CompileEnv;
  /** What the model's expressions may read (the library's exports among it). */
  readonly scope: ExpressionScope;

  constructor(env: CompileEnv, scope: ExpressionScope = new ExpressionScope()) {
    this.env = env;
    this.scope = scope;
  }

  /** Records an error at `location`. */
  error(location: string, message: string): void {
    this.errors.push({ location, message });
  }

  /** Records a warning at `location`. */
  warn(location: string, message: string): void {
    this.warnings.push({ location, message });
  }

  /** The object entries of the array section `name` (absent or null: none). */
  entries(spec: ModelSpec, name: string): SectionEntry[] {
    const section = spec[name];
    if (!Array.isArray(section)) return [];
    return section.flatMap((entry, index) =>
      isObject(entry) ? [{ entry, index, location: `${name}[${index}]` }] : []
    );
  }

  /**
   * Compiles a JSONata expression; null when `source` is not one or does not
   * compile (with JSONata's message and position). `$lookup(` reads what the
   * dependency graph cannot see: a warning (`$eval`, an error of the {@link scope}). Variables nothing binds
   * (`extra`: what this expression is evaluated with besides the model's
   * variables) are findings of the {@link scope}.
   */
  expression(source: unknown, location: string, extra: readonly string[] = []): CompiledExpression | null {
    if (typeof source !== "string" || source.trim() === "") return null;
    if (DYNAMIC_READS.test(source)) {
      this.warn(
        location,
        "$lookup( reads data the dependency graph cannot see: the value can go stale",
      );
    }
    let compiled: CompiledExpression;
    try {
      compiled = this.env.compiler.compile(source);
    } catch (err) {
      this.error(location, `JSONata compile error: ${(err as Error).message}`);
      return null;
    }
    this.scope.check(compiled.ast, location, this, extra);
    return compiled;
  }

  /**
   * Parses a canonical address (a `concrete` one names one location: no `[*]`);
   * null, with the parser's finding (the canonical rewrite of a legacy or
   * unrooted form), when it is not one, or when it lies deeper than
   * `svc.limits.max-depth` (what the model writes there would nest the
   * document deeper than any write may), or is longer than an id may be
   * (a derivation's path names every trace of it, in each write's result).
   */
  address(value: unknown, location: string, concrete = false): Segment[] | null {
    const parsed = concrete ? parseConcretePath(value) : parsePath(value);
    if (!parsed.ok) {
      this.error(location, parsed.message);
      return null;
    }
    const { maxDepth } = this.env.config;
    if (parsed.path.length > maxDepth) {
      this.error(
        location,
        `the address is ${parsed.path.length} levels deep: svc.limits.max-depth is ${maxDepth}`,
      );
      return null;
    }
    if ((value as string).length > MAX_ID_LENGTH) {
      this.error(location, longAddressMessage(value as string));
      return null;
    }
    return parsed.path;
  }
}
