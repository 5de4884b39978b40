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
 * Yields must not reorder the evaluation: jsonata-js evaluates the items of an
 * array constructor and the values of an object constructor concurrently
 * (`Promise.all`), and when several fail, the first to fail in microtask order
 * is the error. A macrotask yield taken by one of those branches lets its
 * siblings run ahead, so the error reported depended on when the 10 ms fell
 * (load). So while sibling branches are in flight, yields come after a fixed
 * amount of work ({@link WORK_PER_YIELD}, counted the same on every run) instead
 * of after 10 ms: the interleaving, and with it the error, is then the same
 * whatever the load, and that of jsonata-js for any evaluation that does not
 * reach that much work. A lone chain of steps yields every 10 ms as before
 * (nothing can overtake it).
 *
 * The depth limit (D1011) holds per chain of steps: jsonata-js's own check
 * sums the depths of the branches in flight, so a grouping of 1,000 items
 * overflowed. The guard checks the same depth against the limit once per chain
 * in flight (see `#checkDepth`).
 *
 * @module
 */
import { macrotask } from "../pacing.ts";
import { isExtended } from "./group_extension.ts";

/** Evaluation time between two yields to the event loop. */
export const YIELD_EVERY_MS = 10;

/**
 * Work (steps, plus bytes charged / {@link BYTES_PER_STEP}) between two yields while
 * concurrent branches are in flight: some 5 to 15 ms at 300 to 800 steps per ms.
 */
export const WORK_PER_YIELD = 4096;

/** Charged bytes that count as one step of work (a big result stands for the work that built it). */
const BYTES_PER_STEP = 256;

/** Approximate bytes a step in flight holds (jsonata-js's frames and promises). */
const STEP_BYTES = 1024;

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
  /** Steps one chain of steps may have in flight (D1011), `svc.limits.expression-max-depth`. */
  maxDepth: number;
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
  /** Steps entered so far (with {@link #charged}, the work that paces yields between concurrent branches). */
  #steps = 0;
  /** The work after which the next yield between concurrent branches comes. */
  #nextOrderedYield = WORK_PER_YIELD;
  /** Per concurrent section (see {@link SECTION_OF}): its branches entered and not exited. */
  readonly #inFlight = new Map<object, number>();
  /** Sections with two branches or more in flight. */
  #concurrent = 0;
  /** Chains of steps in flight: one, plus each section's branches in flight beyond its first. */
  #chains = 1;
  /** The last empty array a step took or gave: the likeliest input of another grouping (group_extension.ts). */
  #lastEmpty?: unknown[];
  /** A grouping over nothing whose extended array (if any) was not emptied again on the spot. */
  #unrestored = false;
  /** Per grouping whose input the hooks see (see {@link WATCHED}): instances in flight, results, its empty input. */
  readonly #watched = new Map<object, Watch>();

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

  /** Charges `bytes` produced by a step; throws when the budget is spent (with `held` bytes more held now). */
  charge(bytes: number, held = 0): void {
    this.#charged += bytes;
    if (this.#charged + held > this.limits.memoryBytes) {
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

  /** Charges `count` sequence slots about to be built, before they are built. */
  chargeSlots(count: number): void {
    this.charge(count * SLOT_BYTES);
  }

  /**
   * Before a step (or a chunk of a builtin's work): the deadline, and a macrotask
   * yield when the evaluation has run for a while: by the clock when one chain of
   * steps runs alone, by the work done when `ordered` (branches in flight).
   */
  enter(ordered = this.#concurrent > 0): Promise<void> | undefined {
    const now = Date.now();
    this.checkDeadline(now);
    if (ordered) {
      const work = this.#steps + this.#charged / BYTES_PER_STEP;
      if (work < this.#nextOrderedYield) return undefined;
      this.#nextOrderedYield = work + WORK_PER_YIELD;
    } else if (now - this.#lastYield < YIELD_EVERY_MS) {
      return undefined;
    }
    return macrotask().then(() => {
      this.#lastYield = Date.now();
    });
  }

  /**
   * Before an evaluation step of JSONata, `depth` steps deep counting every
   * branch in flight: its branches are known, a branch is counted in flight.
   */
  enterStep(step: unknown, input?: unknown, depth = 0): Promise<void> | undefined {
    this.#steps++;
    registerBranches(step as StepNode);
    const empty = Array.isArray(input) && !input.length ? input : undefined;
    if (WATCHED.has(step as object)) {
      // An object constructor's input is its own; a path's comes from its last step (exitStep).
      const watch = this.#watched.get(step as object);
      const own = (step as StepNode).type === "unary" ? empty : undefined;
      if (watch) [watch.live, watch.results, watch.empty] = [watch.live + 1, 0, own];
      else this.#watched.set(step as object, { live: 1, results: 0, empty: own });
    }
    if (empty) this.#lastEmpty = empty;
    else if (input === undefined && GROUP_KEYS.has(step as object)) {
      this.#groupedNothing(GROUP_KEYS.get(step as object)!);
    }
    const section = SECTION_OF.get(step as object);
    if (section !== undefined) {
      const inFlight = (this.#inFlight.get(section) ?? 0) + 1;
      this.#inFlight.set(section, inFlight);
      if (inFlight > 1) this.#chains++;
      if (inFlight === 2) this.#concurrent++;
    }
    this.#checkDepth(depth);
    // A branch's siblings start after it (synchronously, as jsonata-js maps over them): paced by work already.
    return section === undefined ? this.enter() : this.enter(true);
  }

  /**
   * Fails as jsonata-js's `stack` option does (D1011), but per chain of steps:
   * its one depth counts the steps in flight of every branch, so it may reach
   * maxDepth once per chain. The steps beyond one chain's count against the
   * memory budget, so thousands of deep branches at once cannot exhaust memory.
   */
  #checkDepth(depth: number): void {
    const over = depth - this.limits.maxDepth;
    if (over <= 0) return;
    if (over > this.limits.maxDepth * (this.#chains - 1)) {
      throw { code: "D1011", value: this.limits.maxDepth };
    }
    this.charge(0, over * STEP_BYTES);
  }

  /** After an evaluation step: its result is charged; a branch that ends is no longer in flight. */
  exitStep(step: unknown, result: unknown, input?: unknown): void {
    this.exit(result);
    const empty = Array.isArray(result) && !result.length ? result : undefined;
    if (empty) this.#lastEmpty = empty;
    const path = LAST_STEP_OF.get(step as object);
    const watch = path && this.#watched.get(path);
    if (watch && result !== undefined) [watch.results, watch.empty] = [watch.results + 1, empty];
    if (WATCHED.has(step as object)) this.#watched.get(step as object)!.live--;
    // An object constructor (`{}` has no key) extended its own input.
    if (isExtended(input)) input.length = 0;
    // A branch that fails never gets here and stays counted: the pacing stays by work, which is safe.
    const section = SECTION_OF.get(step as object);
    if (section === undefined) return;
    const inFlight = this.#inFlight.get(section)! - 1;
    this.#inFlight.set(section, inFlight);
    if (inFlight === 1) this.#concurrent--;
    // Its chain counts until jsonata-js takes the step off its depth: one tick after this hook, so two from now.
    if (inFlight) queueMicrotask(() => queueMicrotask(() => this.#chains--));
  }

  /**
   * A key of `owner`'s grouping entered with nothing: the grouping's input was
   * undefined, or empty and then extended. The array is emptied again when the
   * hooks saw which it is; else the evaluation's values are scanned at its end.
   */
  #groupedNothing(owner: object): void {
    const watch = this.#watched.get(owner);
    // A watched grouping's input is known unless it runs twice at once; one with no lone empty input built its own.
    const input = watch === undefined
      ? this.#lastEmpty
      : watch.live > 1
      ? null
      : watch.results < 2 && watch.empty;
    if (isExtended(input)) input.length = 0;
    else if (input !== false && input !== undefined || watch === undefined) this.#unrestored = true;
  }

  /** Whether the evaluation's values must be scanned for extended arrays (after a failure: whether one may be). */
  mayHaveExtended(failed: boolean): boolean {
    return this.#unrestored || (failed && this.#lastEmpty !== undefined);
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

/** What the guard reads of a JSONata AST node. */
interface StepNode {
  type?: string;
  value?: unknown;
  expressions?: unknown[];
  lhs?: unknown;
  group?: { lhs?: unknown };
  steps?: unknown[];
  stages?: unknown;
}

/**
 * Each node jsonata-js evaluates as one of several concurrent branches (an item
 * of an array constructor, a value of an object constructor or grouping), to
 * the node that runs them (its section). Recorded when the section is entered,
 * before its branches start; the same for every evaluation of the AST.
 */
const SECTION_OF = new WeakMap<object, object>();

/** The key expressions of groupings (to the node that groups), entered with nothing when a grouping runs over nothing. */
const GROUP_KEYS = new WeakMap<object, object>();

/**
 * Groupings whose input the hooks see: an object constructor's (its own input)
 * and a path's that ends in a plain field step (that step's result, when it is
 * the only one; else the path built a sequence of its own).
 */
const WATCHED = new WeakSet<object>();

/** The last step of a watched path, to the path. */
const LAST_STEP_OF = new WeakMap<object, object>();

/** What the guard knows of a watched grouping's current evaluation. */
interface Watch {
  live: number;
  results: number;
  empty?: unknown[];
}

function registerBranches(node: StepNode): void {
  if (node.type === "unary") {
    const items = node.expressions;
    if (node.value === "[" && items && items.length > 1) {
      for (const item of items) SECTION_OF.set(item as object, node);
    } else if (node.value === "{") {
      registerGroup(node, node);
      WATCHED.add(node);
    }
  }
  if (node.group === undefined) return;
  registerGroup(node.group, node);
  const last = node.type === "path" ? (node.steps as StepNode[]).at(-1)! : undefined;
  if (last?.type === "name" && !last.stages) {
    WATCHED.add(node);
    LAST_STEP_OF.set(last, node);
  }
}

/** Every key of a grouping is a branch of its own: even one pair may run concurrently with itself. */
function registerGroup(group: { lhs?: unknown }, owner: object): void {
  if (!Array.isArray(group.lhs)) return;
  for (const pair of group.lhs as object[][]) {
    SECTION_OF.set(pair[1], group);
    GROUP_KEYS.set(pair[0], owner);
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
export function entryHook(expr: unknown, input: unknown, environment: Frame): Promise<void> | undefined {
  const guard = guardOf(environment);
  if (!guard) return undefined;
  const base = environment.base!;
  guard.root ??= base;
  if (guard.regexEngine && base.RegexEngine !== guard.regexEngine) base.RegexEngine = guard.regexEngine;
  return guard.enterStep(expr, input, base.depth as number);
}

/** The `jsonata.__evaluate_exit` hook. */
export function exitHook(expr: unknown, input: unknown, environment: Frame, result: unknown): void {
  const guard = guardOf(environment);
  guard?.exitStep(expr, result, input);
  guard?.observer?.(expr, environment);
}
