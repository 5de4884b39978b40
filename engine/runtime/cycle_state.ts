/**
 * The working state of one mutation cycle, shared by its jobs (write checks,
 * patch, defaults, derivation, constraints, effects): a copy-on-write draft of
 * the document and of the meta cache, what changed (dirty paths, created
 * containers), what the result reports, and the evaluation of a node against
 * the draft with its trace.
 *
 * @module
 */
import type { EngineConfig } from "../config.ts";
import { unprocessable } from "../errors.ts";
import { clockBindings } from "../expr/clock.ts";
import { AggregateStore } from "./aggregate/incremental.ts";
import type { CompiledExpression } from "../expr/compiler.ts";
import { DirtySet } from "../graph/dirty.ts";
import { DocumentDraft, expandPattern } from "../json/document.ts";
import { formatPath, type Segment } from "../json/path.ts";
import type { Json } from "../json/value.ts";
import type { CompiledModel } from "../model/compile.ts";
import type { CompiledNode, DerivedNode } from "../model/nodes.ts";
import { targetHolding } from "../model/target_index.ts";
import type { ModelState, WriteSource } from "./results.ts";
import { MAX_TRACED_CHARS, tracedResult, type TraceRecord } from "./traces.ts";
import { quoted } from "../quoted.ts";

/** The value of one evaluation, or its error message. */
export interface Evaluated {
  value: Json | undefined;
  error: string | null;
}

/** The limits of a cycle beyond the engine configuration. */
export interface CycleLimits {
  /** JSON bytes its writes may add (`svc.limits.max-state-bytes` less the state); default unbounded. */
  growthBudget?: number;
  /** Multiplies the expression deadline (a replay at startup is never stricter than the write was). */
  timeScale?: number;
}

/** One cycle's draft of a model's state and its record of what changed. */
export class CycleState {
  readonly model: CompiledModel;
  readonly config: EngineConfig;
  readonly source: WriteSource;
  /** The document being changed, and the committed document it started from. */
  readonly draft: DocumentDraft;
  readonly base: Json;
  /** The runtime's aggregate indexes. */
  readonly aggregates: AggregateStore;
  /** What the writes (and the derivations after them) touched. */
  dirty: DirtySet = new DirtySet();
  /** Containers the writes created, for defaults. */
  readonly created: Segment[][] = [];
  /**
   * Addresses written (`mutatedPaths`), derived (`derivedUpdated`), meta keys
   * updated (`metaUpdated`): each once, though a status document's round may
   * write or evaluate it again.
   */
  readonly mutated = new Set<string>();
  readonly derived = new Set<string>();
  readonly metaUpdated = new Set<string>();
  /** One trace per evaluation, in order. */
  readonly traces: TraceRecord[] = [];
  /** The cycle's instant (epoch ms): what `$now()` answers and when its effects fired. */
  readonly now: number;
  /** Epoch ms by which every expression of the cycle must end (`svc.limits.expression-timeout-ms`). */
  readonly deadline: number;
  readonly #baseMeta: ReadonlyMap<string, Json>;
  #meta: Map<string, Json> | null = null;
  readonly #baseStale: ReadonlySet<string>;
  #stale: Set<string> | null = null;
  #global: Record<string, unknown> | null = null;

  constructor(
    model: CompiledModel,
    state: ModelState,
    config: EngineConfig,
    source: WriteSource,
    now: number,
    limits: CycleLimits = {},
  ) {
    this.model = model;
    this.config = config;
    this.source = source;
    this.now = now;
    this.deadline = Date.now() + config.expressionTimeoutMs * (limits.timeScale ?? 1);
    this.draft = new DocumentDraft(state.doc, limits.growthBudget);
    this.base = state.doc;
    this.aggregates = state.aggregates ?? new AggregateStore();
    this.#baseMeta = state.meta;
    this.#baseStale = state.stale;
  }

  /** The bindings of every expression of the cycle: the model's, the clock, and `$parent` when given. */
  bindings(parent?: Json): Record<string, unknown> {
    // Built once per cycle; evaluations only read their bindings (the interpreter binds a copy).
    const global = this.#global ??= {
      ...this.model.bindings.base,
      parent: undefined,
      ...clockBindings(this.now),
    };
    return parent === undefined ? global : { ...global, parent };
  }

  /** The meta cache as the cycle currently sees it. */
  get meta(): ReadonlyMap<string, Json> {
    return this.#meta ?? this.#baseMeta;
  }

  /** The meta cache, copied on the first change. */
  writableMeta(): Map<string, Json> {
    return this.#meta ??= new Map(this.#baseMeta);
  }

  /** Keys of lazy derivations whose values are stale, as the cycle currently sees them. */
  get stale(): ReadonlySet<string> {
    return this.#stale ?? this.#baseStale;
  }

  /**
   * The stale keys, copied on the first change: a write that leaves them as they
   * were shares the committed set (sets are not changed once committed).
   */
  writableStale(): Set<string> {
    return this.#stale ??= new Set(this.#baseStale);
  }

  /** The derivation whose target holds `path`, if any. */
  derivedAt(path: readonly Segment[]): DerivedNode | undefined {
    return targetHolding(this.model.derivedTargets, path);
  }

  /**
   * Evaluates an expression against the draft (synchronously when a compiled
   * closure answers); a failure refuses the write, naming `what`.
   */
  evaluateExpression(
    compiled: CompiledExpression,
    parent: Json | undefined,
    what: string,
  ): Json | undefined | Promise<Json | undefined> {
    const refuse = (err: unknown) => {
      throw unprocessable(`Evaluation of ${what} failed: ${(err as Error).message}`);
    };
    try {
      const answer = compiled.evaluateNow(this.draft.root, this.bindings(parent), this);
      return answer instanceof Promise ? answer.catch(refuse) : answer;
    } catch (err) {
      return refuse(err);
    }
  }

  /**
   * Evaluates a node for one element (or globally) and records its trace;
   * synchronously when a compiled closure answers. `view`: the document and
   * element it sees instead of the draft's (a derivation hiding targets).
   */
  evaluate(
    node: CompiledNode,
    element: Segment[] | null,
    targetPath: string,
    view?: { root: Json; parent: Json | undefined },
  ): Evaluated | Promise<Evaluated> {
    let answer: Json | undefined | Promise<Json | undefined>;
    try {
      answer = node.compiled.evaluateNow(
        view ? view.root : this.draft.root,
        this.bindings(view ? view.parent : element ? this.draft.get(element) : undefined),
        this,
      );
    } catch (err) {
      return this.#traced(node, targetPath, undefined, (err as Error).message);
    }
    if (!(answer instanceof Promise)) return this.#traced(node, targetPath, answer, null);
    return answer.then(
      (value) => this.#traced(node, targetPath, value, null),
      (err) => this.#traced(node, targetPath, undefined, (err as Error).message),
    );
  }

  #traced(node: CompiledNode, targetPath: string, value: Json | undefined, error: string | null): Evaluated {
    this.trace(node, targetPath, value, error);
    return { value, error };
  }

  /** Records the trace of one evaluation of `node`. */
  trace(node: CompiledNode, targetPath: string, value: Json | undefined, error: string | null): void {
    const { expression, inputPaths } = tracedOf(node);
    this.traces.push({
      targetPath,
      expression,
      inputPaths: inputPaths.slice(),
      result: value === undefined ? null : tracedResult(value),
      constraintPassed: null,
      errorMessage: error && quoted(error, MAX_TRACED_CHARS),
    });
  }

  /** Elements (or `[null]` for a global node) of `node` that the changes touched. */
  work(node: CompiledNode): (Segment[] | null)[] {
    if (!node.elementPattern) return this.dirty.touches(node) ? [null] : [];
    return this.dirty.elementsToEvaluate(node, this.draft.root);
  }

  /** Every element of a per-element node, or `[null]` for a global one. */
  allElements(node: CompiledNode): (Segment[] | null)[] {
    return node.elementPattern ? expandPattern(this.draft.root, node.elementPattern) : [null];
  }
}

/** What every trace of a node repeats: its expression and the addresses it reads. */
interface Traced {
  expression: string;
  inputPaths: readonly string[];
}

/**
 * A node's {@link Traced} parts, made once per compiled node (every evaluation
 * traces them), each at most {@link MAX_TRACED_CHARS}: a trace lands in every
 * write's audit record and the trace ring, so a 500 KB expression whole would
 * make each write's record 500 KB.
 */
const traced = new WeakMap<CompiledNode, Traced>();

function tracedOf(node: CompiledNode): Traced {
  let parts = traced.get(node);
  if (!parts) {
    traced.set(
      node,
      parts = {
        expression: quoted(node.expression, MAX_TRACED_CHARS),
        inputPaths: node.reads.map((r) => quoted(formatPath(r.path), MAX_TRACED_CHARS)),
      },
    );
  }
  return parts;
}
