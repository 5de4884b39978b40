/**
 * The largest (or smallest) of a fixed-length list of numbers, kept up to date
 * as single elements change: a segment tree, O(log N) per change. `Math.max`
 * and `Math.min` are associative and commutative on finite numbers (signed
 * zeros included: `Math.max(-0, 0)` is `0` either way round), so combining in
 * tree order gives what JSONata's `Math.max.apply(Math, values)` gives.
 * A missing value is stored as the identity (-∞ for max, +∞ for min), which a
 * document never holds.
 *
 * @module
 */

/** A max or min segment tree. */
export class ExtremeTree {
  readonly #combine: (a: number, b: number) => number;
  readonly #identity: number;
  readonly #leaves: number;
  readonly #nodes: Float64Array;

  /** `values`: the list, missing values as `NaN`. */
  constructor(kind: "max" | "min", values: Float64Array) {
    this.#combine = kind === "max" ? Math.max : Math.min;
    this.#identity = kind === "max" ? -Infinity : Infinity;
    let leaves = 1;
    while (leaves < values.length) leaves *= 2;
    this.#leaves = leaves;
    this.#nodes = new Float64Array(2 * leaves).fill(this.#identity);
    for (let i = 0; i < values.length; i++) this.#nodes[leaves + i] = this.#leaf(values[i]);
    for (let i = leaves - 1; i >= 1; i--) {
      this.#nodes[i] = this.#combine(this.#nodes[2 * i], this.#nodes[2 * i + 1]);
    }
  }

  /** The extreme of the present values (the identity when there are none). */
  get value(): number {
    return this.#nodes[1];
  }

  /** Replaces the value at `index` (`NaN` for a missing one). */
  set(index: number, value: number): void {
    let i = this.#leaves + index;
    this.#nodes[i] = this.#leaf(value);
    for (i >>= 1; i >= 1; i >>= 1) this.#nodes[i] = this.#combine(this.#nodes[2 * i], this.#nodes[2 * i + 1]);
  }

  #leaf(value: number): number {
    return Number.isNaN(value) ? this.#identity : value;
  }
}
