/**
 * The guard of one JSONata evaluation: a wall-clock deadline, a budget of the
 * memory its steps may produce, and cooperative yielding.
 *
 * JSONata awaits the `jsonata.__evaluate_entry` and `__evaluate_exit` callbacks
 * around every evaluation step. The entry hook checks the deadline and, every
 * {@link YIELD_EVERY_MS} of evaluation, yields one macrotask so the host serves
 * other requests while a long expression runs; the exit hook charges the size
 * of each step's result (strings by length, sequences and arrays by element)
 * to the budget, so a chain of cheap steps cannot build a memory bomb. Work
 * inside one step is bounded elsewhere: the sequence limit (range operator and
 * paths), the guarded builtins (`builtins.ts`) and the linear-time regex engine
 * (`regex_engine.ts`).
 *
 * @module
 */

/** Evaluation time between two yields to the event loop. */
export const YIELD_EVERY_MS = 10;

/** Approximate bytes a produced string character and a sequence slot cost. */
const CHAR_BYTES = 2;
const SLOT_BYTES = 8;

/** Limits of one evaluation. */
export interface GuardLimits {
  /** Epoch ms after which the evaluation fails (D1012). */
  deadline: number;
  /** Approximate bytes of strings and sequences the evaluation may produce. */
  memoryBytes: number;
  /** The configured budget, for messages. */
  timeoutMs: number;
}

/** A JSONata-style failure (a plain object with a code), which the compiler turns into an ExpressionError. */
export interface GuardFailure {
  code: string;
  message: string;
  position?: number;
}

/** The state of one running evaluation. */
export class EvaluationGuard {
  readonly limits: GuardLimits;
  /** The RegExp-like constructor regex literals of this evaluation use (bound to this guard). */
  regexEngine?: unknown;
  /**
   * The evaluation's root frame (JSONata's `base`: depth, sequence limit, regex
   * engine, this guard), known from the first step on: functions defined by
   * another evaluation run on it when this one calls them (`shared_function.ts`).
   */
  root?: RootFrame;
  /** Called after every step with the step and the frame it ran in. */
  observer?: (step: unknown, frame: Frame) => void;
  #charged = 0;
  #lastYield = Date.now();

  constructor(limits: GuardLimits) {
    this.limits = limits;
  }

  /** Bytes charged so far. */
  get charged(): number {
    return this.#charged;
  }

  /** Throws once the deadline has passed. */
  checkDeadline(now = Date.now()): void {
    if (now > this.limits.deadline) {
      // JSONata's own code and wording ("Evaluation timeout after N milliseconds").
      throw { ...failure("D1012", ""), value: this.limits.timeoutMs };
    }
  }

  /** Charges `bytes` produced by a step; throws when the budget is spent. */
  charge(bytes: number): void {
    this.#charged += bytes;
    if (this.#charged > this.limits.memoryBytes) {
      throw failure(
        "U1002",
        `Evaluation produced more than ${this.limits.memoryBytes} bytes (svc.limits.expression-memory-bytes)`,
      );
    }
  }

  /** Charges a string about to be built of `chars` characters, before it is built. */
  chargeChars(chars: number): void {
    this.charge(chars * CHAR_BYTES);
  }

  /** Before a step: the deadline, and a macrotask yield when the evaluation has run for a while. */
  enter(): Promise<void> | undefined {
    const now = Date.now();
    this.checkDeadline(now);
    if (now - this.#lastYield < YIELD_EVERY_MS) return undefined;
    return new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => {
      this.#lastYield = Date.now();
    });
  }

  /** After a step: its result's size is charged. */
  exit(result: unknown): void {
    if (typeof result === "string") {
      if (result.length > 64) this.charge(result.length * CHAR_BYTES);
    } else if (Array.isArray(result)) {
      this.charge(result.length * SLOT_BYTES);
    }
  }
}

/** A failure in JSONata's error shape. */
export function failure(code: string, message: string): GuardFailure {
  return { code, message };
}

/** The binding name under which an evaluation's guard is passed (not a valid JSONata variable name). */
export const GUARD_BINDING = "svc guard";

/** What the hooks, builtins and shared functions see of a JSONata environment frame. */
export interface Frame {
  lookup(name: string | symbol): unknown;
  bind(name: string, value: unknown): void;
  base?: RootFrame;
}

/** The root frame of an evaluation. */
export interface RootFrame extends Frame {
  RegexEngine?: unknown;
  [member: string]: unknown;
}

/** The guard of the evaluation an environment frame belongs to. */
export function guardOf(environment: Frame | undefined): EvaluationGuard | null {
  const guard = environment?.base?.lookup(GUARD_BINDING);
  return guard instanceof EvaluationGuard ? guard : null;
}

/**
 * The `jsonata.__evaluate_entry` hook. On the first step it also records the
 * evaluation's root frame and installs the evaluation's regex engine on it,
 * where JSONata reads the constructor of every regex literal from.
 */
export function entryHook(_expr: unknown, _input: unknown, environment: Frame): Promise<void> | undefined {
  const guard = guardOf(environment);
  if (!guard) return undefined;
  const base = environment.base!;
  guard.root ??= base;
  if (guard.regexEngine && base.RegexEngine !== guard.regexEngine) base.RegexEngine = guard.regexEngine;
  return guard.enter();
}

/** The `jsonata.__evaluate_exit` hook. */
export function exitHook(expr: unknown, _input: unknown, environment: Frame, result: unknown): void {
  const guard = guardOf(environment);
  guard?.exit(result);
  guard?.observer?.(expr, environment);
}
