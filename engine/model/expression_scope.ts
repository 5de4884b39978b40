/**
 * The variables an expression of a model may read without binding them: the
 * JSONata built-ins (the clock `$now`/`$millis` among them), `$const`,
 * `$parent` (bound, possibly to nothing, in every evaluation), the library's
 * exports and, in an effect's `response.set`, `$response` and `$status`. A
 * call of anything else (`$taxOf(...)` when no library exports `taxOf`) can
 * only fail, so it is an error; a bare read of anything else is always
 * undefined, a warning.
 *
 * @module
 */
import type { Finding } from "../errors.ts";
import { JSONATA_BUILTINS } from "../expr/builtin_names.ts";
import type { AstNode } from "../expr/compiler.ts";
import { freeVariables } from "../expr/free_variables.ts";
import { nearestName } from "../nearest.ts";

/** Variables every expression of a model is evaluated with. */
export const MODEL_VARIABLES: readonly string[] = ["const", "parent"];

/** Variables an effect's `response.set` expressions are evaluated with besides the model's. */
export const RESPONSE_VARIABLES: readonly string[] = ["response", "status"];

/** Where a check records its findings. */
export interface ScopeFindings {
  readonly errors: Finding[];
  readonly warnings: Finding[];
}

/** What the expressions of one model may read. */
export class ExpressionScope {
  readonly #names: ReadonlySet<string>;
  readonly #constants?: readonly string[];

  /**
   * `exports`: the names the model's library exports; `variables`: what the
   * evaluation binds besides them (a library's own layers see only `$const`);
   * `constants`: the model's, when `$const.<name>` reads are to be judged.
   */
  constructor(
    exports: Iterable<string> = [],
    variables: readonly string[] = MODEL_VARIABLES,
    constants?: readonly string[],
  ) {
    this.#names = new Set([...JSONATA_BUILTINS, ...variables, ...exports]);
    this.#constants = constants;
  }

  /** Whether an expression may read `name` (with `extra` names bound besides the model's). */
  has(name: string, extra: readonly string[] = []): boolean {
    return this.#names.has(name) || extra.includes(name);
  }

  /**
   * Records into `findings` the free variables of `ast` nothing binds, at
   * `location`: a call is an error, a bare read a warning (each name once per kind).
   */
  check(ast: AstNode, location: string, findings: ScopeFindings, extra: readonly string[] = []): void {
    const seen = new Set<string>();
    for (const { name, call, position, member } of freeVariables(ast)) {
      // `$const.taxrate` of a model whose constant is `taxRate` is as undefined as an unbound variable.
      const constant = name === "const" && member !== undefined && !call &&
        this.#constants?.includes(member) === false;
      const key = constant ? `.${member}` : `${call}:${name}`;
      const where = position === undefined ? "" : ` at position ${position}`;
      // A string run as code reads what neither the dependency graph nor a library's purity check can see.
      if (name === "eval") {
        findings.errors.push({
          location,
          message: `uses $eval${where}: code made from a string is not allowed`,
        });
        continue;
      }
      if (!constant && this.has(name, extra) || seen.has(key)) continue;
      seen.add(key);
      const read = constant ? `const.${member}` : name;
      const suggestion = constant
        ? nearestName(member, this.#constants!)
        : nearestName(name, [...this.#names, ...extra]);
      const hint = suggestion ? ` (did you mean $${constant ? "const." : ""}${suggestion}?)` : "";
      if (call) {
        findings.errors.push({
          location,
          message: `calls $${name}${where}, which is not a built-in, a library export or a variable ` +
            `the expression binds${hint}`,
        });
      } else {
        findings.warnings.push({
          location,
          message: `reads $${read}${where}, which nothing ${
            constant ? "defines" : "binds"
          }: it is always undefined${hint}`,
        });
      }
    }
  }
}
