/**
 * Timing of async operations for the benchmarks: warm-up, then samples of
 * calibrated batches until a time budget is spent. Several operations are
 * sampled in turns, so load from other processes on a shared machine hits them
 * alike and their ratios stay meaningful; the median of the samples is robust
 * against the odd pause.
 *
 * @module
 */

/** How long and how often to measure. */
export interface MeasureOptions {
  /** Wall-clock budget of the timed samples of all operations together, in milliseconds. */
  budgetMs: number;
  /** Samples taken of each operation even when the budget is spent. */
  minSamples: number;
  /** Target duration of one sample; calls are batched until a sample lasts this long. */
  sampleMs: number;
}

/** The outcome of one measurement. */
export interface Measurement {
  /** Median over the samples of the mean time per call, in microseconds. */
  medianUs: number;
  /** Calls timed (warm-up excluded). */
  calls: number;
}

/**
 * An operation to time; `call` counts its calls so each can do different work.
 * A promise is awaited; a plain answer is not (awaiting it would add a turn of
 * the microtask queue that a synchronous caller never pays).
 */
export type Operation = (call: number) => unknown;

const DEFAULTS: MeasureOptions = { budgetMs: 2400, minSamples: 5, sampleMs: 2 };

interface Timed {
  run: Operation;
  call: number;
  batch: number;
  samples: number[];
}

/** Measures each operation, sampling them in turns. */
export async function measure<K extends string>(
  operations: Record<K, Operation>,
  options: Partial<MeasureOptions> = {},
): Promise<Record<K, Measurement>> {
  const { budgetMs, minSamples, sampleMs } = { ...DEFAULTS, ...options };
  const timed = new Map<K, Timed>();
  const names = Object.keys(operations) as K[];
  for (const name of names) {
    const run = operations[name];
    let call = 0;
    const warmStart = performance.now();
    while (performance.now() - warmStart < budgetMs / 4 / names.length || call < 3) {
      const answer = run(call++);
      if (answer instanceof Promise) await answer;
    }
    const perCall = (performance.now() - warmStart) / call;
    timed.set(name, {
      run,
      call,
      batch: Math.max(1, Math.round(sampleMs / Math.max(perCall, 1e-3))),
      samples: [],
    });
  }

  const stopAt = performance.now() + budgetMs;
  for (let round = 0; round < minSamples || performance.now() < stopAt; round++) {
    for (const t of timed.values()) {
      const started = performance.now();
      for (let i = 0; i < t.batch; i++) {
        const answer = t.run(t.call++);
        if (answer instanceof Promise) await answer;
      }
      t.samples.push((performance.now() - started) / t.batch);
    }
  }

  const out = {} as Record<K, Measurement>;
  for (const [name, t] of timed) {
    const sorted = t.samples.toSorted((a, b) => a - b);
    out[name] = { medianUs: sorted[Math.floor(sorted.length / 2)] * 1000, calls: t.samples.length * t.batch };
  }
  return out;
}
