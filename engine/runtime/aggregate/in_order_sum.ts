/**
 * JSONata's `$sum` of a list of numbers — the left fold `((0 + v0) + v1) + …`
 * in document order — kept up to date as single elements change, with a
 * result always bit-for-bit equal to that fold.
 *
 * Floating-point addition is not associative, so a running total updated with
 * `total - old + new` drifts from the in-order fold in general. It does not
 * when no addition rounds at all, and that is certified here: every value is
 * a multiple of 2^q, where q is the smallest exponent of a lowest set bit among
 * the values (kept in a histogram of those exponents), and Σ|v| ≤ 2^(51+q).
 * Then every partial sum in any order (the fold's prefixes, `total - old`,
 * `+ new`) is a multiple of 2^q of magnitude below 2^53·2^q, so it is exactly
 * representable, no addition rounds, and the fold equals the exact sum, which
 * the O(1) update computes exactly. Integers, cents held as integers, and any
 * binary fractions (quarters, halves) of moderate size stay in this regime.
 *
 * Outside it (decimal fractions like 19.99 do round) a change marks the sum
 * stale and the next read refolds the stored values in order: O(N) additions
 * over a Float64Array, no expression evaluation. A refold also recomputes
 * Σ|v| and the certificate, so the O(1) regime resumes once the values allow.
 * A missing value is stored as +0, which leaves the fold unchanged (it starts
 * at +0, so it never holds -0, and x + +0 = x for every other x).
 *
 * @module
 */

/** Offset of the smallest lowest-set-bit exponent (subnormals) in the histogram. */
const EXPONENT_BIAS = 1074;
/** Lowest-set-bit exponents range over [-1074, 971]. */
const EXPONENTS = 2046;

const view = new DataView(new ArrayBuffer(8));

function trailingZeros(word: number): number {
  return 31 - Math.clz32(word & -word);
}

/** The exponent of the lowest set bit of a finite non-zero double: v = m·2^e with m odd. */
export function lowestBitExponent(value: number): number {
  view.setFloat64(0, value);
  const high = view.getUint32(0);
  const low = view.getUint32(4);
  const biased = (high >>> 20) & 0x7ff;
  const mantissaHigh = high & 0xfffff;
  const zeros = low !== 0 ? trailingZeros(low) : mantissaHigh !== 0 ? 32 + trailingZeros(mantissaHigh) : 52;
  return (biased === 0 ? -1074 : biased - 1075) + zeros;
}

/** The in-order sum of a fixed-length list of finite numbers. */
export class InOrderSum {
  readonly #values: Float64Array;
  readonly #exponents = new Int32Array(EXPONENTS);
  #lowest = EXPONENTS;
  #total = 0;
  #absolute = 0;
  #certified = true;
  #stale = false;

  constructor(values: Float64Array) {
    this.#values = values;
    for (const value of values) this.#count(value, 1);
    this.#refold();
  }

  /** The fold of the values in order. */
  get value(): number {
    if (this.#stale) this.#refold();
    return this.#total;
  }

  /** True while updates are O(1) (no addition of the fold rounds). */
  get exact(): boolean {
    return this.#certified && !this.#stale;
  }

  /** Replaces the value at `index` (+0 for a missing one). */
  set(index: number, value: number): void {
    const old = this.#values[index];
    this.#values[index] = value;
    this.#count(old, -1);
    this.#count(value, 1);
    if (!this.#certified || this.#stale) {
      this.#stale = true;
      return;
    }
    // Exact while the new state is certified (see the module documentation).
    this.#absolute = this.#absolute - Math.abs(old) + Math.abs(value);
    this.#total = this.#total - old + value;
    this.#certified = this.#certify();
    if (!this.#certified) this.#stale = true;
  }

  #count(value: number, delta: number): void {
    if (value === 0) return;
    const slot = lowestBitExponent(value) + EXPONENT_BIAS;
    this.#exponents[slot] += delta;
    if (delta > 0 && slot < this.#lowest) this.#lowest = slot;
    while (this.#lowest < EXPONENTS && this.#exponents[this.#lowest] === 0) this.#lowest++;
  }

  #certify(): boolean {
    if (this.#lowest === EXPONENTS) return true;
    return this.#absolute <= 2 ** (51 + this.#lowest - EXPONENT_BIAS);
  }

  #refold(): void {
    let total = 0;
    let absolute = 0;
    const values = this.#values;
    for (let i = 0; i < values.length; i++) {
      total += values[i];
      absolute += Math.abs(values[i]);
    }
    this.#total = total;
    this.#absolute = absolute;
    this.#certified = this.#certify();
    this.#stale = false;
  }
}
