/**
 * The state of one compiled evaluation and the way out of it. A compiled
 * expression never reports an error or a limit itself: wherever jsonata-js
 * would fail (a type error, a non-finite number, a sequence over its limit) or
 * the evaluation grows past what the interpreter's guard would allow without
 * checking, it bails, and the caller evaluates the expression with jsonata-js,
 * which gives the exact error (code, message, position) or result.
 *
 * @module
 */

/** What a bail throws. */
class Bail {
  readonly reason = "compiled evaluation handed back to the interpreter";
}

const BAIL = new Bail();

/** Abandons the compiled evaluation: the interpreter takes over. */
export function bail(): never {
  throw BAIL;
}

/** Limits under which a compiled evaluation may finish on its own. */
export interface CompiledLimits {
  /** JSONata's evaluation depth (`stack`): deeper expressions are not compiled. */
  maxDepth: number;
  /** JSONata's sequence limit (`sequence`), when one is set. */
  maxItems: number;
  /**
   * Approximate bytes of sequences and strings the evaluation may produce, charged
   * as the interpreter's guard charges its steps; past half of it the interpreter
   * takes over, so its own budget decides.
   */
  memoryBytes: number;
  /** Node evaluations after which the interpreter (which yields to the event loop) takes over. */
  maxSteps: number;
}

/** Bytes the guard charges per sequence slot and per character of a long string. */
const SLOT_BYTES = 8;
const CHAR_BYTES = 2;
const SHORT_STRING = 64;

/** One evaluation: the root document, the caller's bindings, and what has been produced so far. */
export class Context {
  readonly root: unknown;
  readonly bindings: Record<string, unknown> | undefined;
  readonly limits: CompiledLimits;
  #steps = 0;
  #bytes = 0;

  constructor(root: unknown, bindings: Record<string, unknown> | undefined, limits: CompiledLimits) {
    this.root = root;
    this.bindings = bindings;
    this.limits = limits;
  }

  /** A bound variable (`$const`, `$parent`): what jsonata-js's environment lookup answers. */
  variable(name: string): unknown {
    const bindings = this.bindings;
    return bindings !== undefined && Object.prototype.hasOwnProperty.call(bindings, name)
      ? bindings[name]
      : undefined;
  }

  /** Counts one node evaluation and charges its result (before normalisation). */
  exit(result: unknown): void {
    if (++this.#steps > this.limits.maxSteps) bail();
    if (typeof result === "string") {
      if (result.length > SHORT_STRING) this.#charge(result.length * CHAR_BYTES);
    } else if (Array.isArray(result)) {
      if (result.length > this.limits.maxItems) bail();
      this.#charge(result.length * SLOT_BYTES);
    }
  }

  /** Checks an array built inside a step against the sequence limit. */
  checkItems(items: unknown[]): void {
    if (items.length > this.limits.maxItems) bail();
  }

  #charge(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes > this.limits.memoryBytes / 2) bail();
  }
}
