/**
 * Aggregate derivations kept incrementally across cycles. Each model runtime
 * carries an {@link AggregateStore} (on its state): per aggregate derivation,
 * an {@link AggregateIndex} and the array it reflects. A cycle that touches the
 * derivation updates the index from the elements its changes touched, and the
 * index answers the value instead of an evaluation.
 *
 * The index is trusted only where it provably reflects the cycle's starting
 * document: it must have been left on the very array the committed document
 * holds (committed containers are never modified; a cycle copies what it
 * writes), with as many elements, and the changes must neither replace the
 * array nor insert or remove elements. Otherwise (a dropped cycle, a restore,
 * history reads, reshaped arrays) it is rebuilt from the document: reading one
 * field per element, no evaluation. Anything the index cannot hold is
 * evaluated as usual.
 *
 * @module
 */
import type { DirtySet } from "../../graph/dirty.ts";
import type { Json } from "../../json/value.ts";
import type { DerivedNode } from "../../model/nodes.ts";
import { AggregateIndex } from "./aggregate_index.ts";
import { type AggregatePlan, aggregatePlan, arrayAt, elementNumber, UNSUPPORTED } from "./plan.ts";

interface Entry {
  /** The array the index reflects. */
  array: Json[];
  index: AggregateIndex;
}

/** The aggregate indexes of one model runtime, by derivation key. */
export class AggregateStore {
  readonly #entries = new Map<string, Entry>();
  readonly #plans = new WeakMap<DerivedNode, AggregatePlan | null>();

  /** The plan of a derivation kept incrementally, or null (memoised per node). */
  planOf(node: DerivedNode): AggregatePlan | null {
    let plan = this.#plans.get(node);
    if (plan === undefined) {
      plan = node.elementPattern === null ? aggregatePlan(node.compiled.ast, node.reads) : null;
      this.#plans.set(node, plan);
    }
    return plan;
  }

  /**
   * The value of `node` on `doc`, the draft of a cycle that started from `base`
   * and changed `dirty`; {@link UNSUPPORTED} when it must be evaluated instead.
   */
  value(
    node: DerivedNode,
    plan: AggregatePlan,
    change: { base: Json; doc: Json; dirty: DirtySet },
  ): number | undefined | typeof UNSUPPORTED {
    const items = arrayAt(change.doc, plan.arrayPath);
    const entry = items === UNSUPPORTED ? undefined : this.#entries.get(node.key);
    this.#entries.delete(node.key);
    if (items === UNSUPPORTED) return UNSUPPORTED;
    const current = entry !== undefined && entry.index.length === items.length &&
      entry.array === arrayAt(change.base, plan.arrayPath) && !change.dirty.everything &&
      !change.dirty.reshapes(plan.elementPattern);
    const index = current ? update(entry.index, plan, items, change) : build(plan, items);
    if (index === UNSUPPORTED) return UNSUPPORTED;
    this.#entries.set(node.key, { array: items, index });
    return index.value;
  }
}

function build(plan: AggregatePlan, items: Json[]): AggregateIndex | typeof UNSUPPORTED {
  const values: (number | undefined)[] = [];
  for (const element of items) {
    const value = elementNumber(element, plan.fieldKeys);
    if (value === UNSUPPORTED) return UNSUPPORTED;
    values.push(value);
  }
  return new AggregateIndex(plan.kind, values);
}

function update(
  index: AggregateIndex,
  plan: AggregatePlan,
  items: Json[],
  change: { doc: Json; dirty: DirtySet },
): AggregateIndex | typeof UNSUPPORTED {
  const reader = {
    elementPattern: plan.elementPattern,
    reads: [{ path: plan.read.path, elementScoped: true }],
  };
  const at = plan.arrayPath.length;
  for (const element of change.dirty.elementsToEvaluate(reader, change.doc)) {
    const position = element[at] as number;
    const value = elementNumber(items[position], plan.fieldKeys);
    if (value === UNSUPPORTED) return UNSUPPORTED;
    index.set(position, value);
  }
  return index;
}
