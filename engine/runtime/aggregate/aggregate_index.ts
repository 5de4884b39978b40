/**
 * The value of one aggregate (`$sum`, `$count`, `$average`, `$max`, `$min`)
 * over the per-element numbers of an array, updated per changed element:
 * O(1) for `$count`, for `$sum` and `$average` while no addition rounds (see
 * `in_order_sum.ts`, otherwise an in-order refold on read), O(log N) for
 * `$max` and `$min` (`extreme_tree.ts`). The value equals JSONata's over the
 * same numbers in document order, absent numbers skipped; with none present
 * it is JSONata's too (`$count` 0, the others nothing).
 *
 * @module
 */
import { ExtremeTree } from "./extreme_tree.ts";
import { InOrderSum } from "./in_order_sum.ts";

/** The aggregates kept incrementally. */
export type AggregateKind = "sum" | "count" | "average" | "max" | "min";

/** The index of one aggregate over a fixed number of elements. */
export class AggregateIndex {
  readonly kind: AggregateKind;
  readonly #present: Uint8Array;
  #count = 0;
  readonly #sum: InOrderSum | null;
  readonly #extreme: ExtremeTree | null;

  /** `values`: each element's number, `undefined` where it has none. */
  constructor(kind: AggregateKind, values: readonly (number | undefined)[]) {
    this.kind = kind;
    this.#present = new Uint8Array(values.length);
    const numbers = new Float64Array(values.length);
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      if (value === undefined) {
        numbers[i] = kind === "sum" || kind === "average" ? 0 : NaN;
        continue;
      }
      this.#present[i] = 1;
      this.#count++;
      numbers[i] = value;
    }
    this.#sum = kind === "sum" || kind === "average" ? new InOrderSum(numbers) : null;
    this.#extreme = kind === "max" || kind === "min" ? new ExtremeTree(kind, numbers) : null;
  }

  /** Number of elements. */
  get length(): number {
    return this.#present.length;
  }

  /** Replaces the number of element `index` (`undefined`: it has none). */
  set(index: number, value: number | undefined): void {
    const present = value === undefined ? 0 : 1;
    this.#count += present - this.#present[index];
    this.#present[index] = present;
    this.#sum?.set(index, value ?? 0);
    this.#extreme?.set(index, value ?? NaN);
  }

  /** The aggregate's value, as JSONata computes it. */
  get value(): number | undefined {
    if (this.kind === "count") return this.#count;
    if (this.#count === 0) return undefined;
    if (this.#extreme) return this.#extreme.value;
    const total = this.#sum!.value;
    return this.kind === "sum" ? total : total / this.#count;
  }
}
