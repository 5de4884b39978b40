/**
 * CPU time of this thread for the benchmarks, read through FFI from libc's
 * `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`. On a shared machine wall-clock
 * medians carry whatever the other processes did meanwhile; the thread's own
 * CPU time counts only the cycles this JavaScript thread ran (V8's helper
 * threads, which do part of the garbage collection, are left out for every
 * operation alike). Linux only: elsewhere {@link threadCpuClock} says so.
 *
 * {@link measureCpu} times blocks of calls of several operations in turns,
 * rounds in the order given alternating with rounds in the reverse order
 * (which one goes first alone shifts a ratio by a few percent), so each ratio
 * is printed for both orders.
 *
 * @module
 */
import type { Operation } from "./measure.ts";

/** `CLOCK_THREAD_CPUTIME_ID` of Linux's `<time.h>`. */
const CLOCK_THREAD_CPUTIME_ID = 3;

/** A reader of this thread's CPU time in microseconds. */
export type CpuClock = () => number;

/** Opens libc and returns the thread's CPU clock; throws a clear error where it cannot. */
export function threadCpuClock(): CpuClock {
  if (Deno.build.os !== "linux") {
    throw new Error(
      `the CPU-time mode reads CLOCK_THREAD_CPUTIME_ID through libc, only on Linux (this is ${Deno.build.os})`,
    );
  }
  const libc = Deno.dlopen(
    "libc.so.6",
    {
      clock_gettime: { parameters: ["i32", "buffer"], result: "i32" },
    } as const,
  );
  // struct timespec on 64-bit Linux: tv_sec and tv_nsec, two 64-bit integers.
  const timespec = new BigInt64Array(2);
  return () => {
    if (libc.symbols.clock_gettime(CLOCK_THREAD_CPUTIME_ID, timespec) !== 0) {
      throw new Error("clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    }
    return Number(timespec[0]) * 1e6 + Number(timespec[1]) / 1e3;
  };
}

/** How many blocks of how many calls. */
export interface CpuMeasureOptions {
  /** Blocks of each operation per order. */
  blocks: number;
  /** Calls in one block. */
  blockCalls: number;
}

/** Median CPU µs per call of each operation, for the given order and the reversed one. */
export interface CpuMeasurement<K extends string> {
  forward: Record<K, number>;
  reversed: Record<K, number>;
}

const CPU_DEFAULTS: CpuMeasureOptions = { blocks: 40, blockCalls: 100 };
const WARM_UP_ROUNDS = 10;

/**
 * Times `operations` in blocks of calls, in turns, by this thread's CPU time:
 * warm-up rounds, then `blocks` rounds in the given order alternating with
 * `blocks` rounds in the reverse order. Every operation counts its calls
 * throughout, so each call does the work of a fresh one.
 */
export async function measureCpu<K extends string>(
  operations: Record<K, Operation>,
  options: Partial<CpuMeasureOptions> = {},
  clock: CpuClock = threadCpuClock(),
): Promise<CpuMeasurement<K>> {
  const { blocks, blockCalls } = { ...CPU_DEFAULTS, ...options };
  const names = Object.keys(operations) as K[];
  const calls = new Map<K, number>(names.map((name) => [name, 0]));
  const block = async (name: K): Promise<number> => {
    const run = operations[name];
    let call = calls.get(name)!;
    const started = clock();
    for (let i = 0; i < blockCalls; i++) {
      const answer = run(call++);
      if (answer instanceof Promise) await answer;
    }
    const spent = clock() - started;
    calls.set(name, call);
    return spent / blockCalls;
  };
  // Warm-up rounds: the JIT settles and the first-time costs are paid before any sample.
  for (let round = 0; round < WARM_UP_ROUNDS; round++) {
    for (const name of names) await block(name);
  }
  // The two turn orders alternate round by round, so both see the same spells of the machine.
  const orders = [names, names.toReversed()];
  const samples = orders.map(() => new Map<K, number[]>(names.map((name) => [name, []])));
  for (let round = 0; round < 2 * blocks; round++) {
    const which = round % 2;
    for (const name of orders[which]) samples[which].get(name)!.push(await block(name));
  }
  const medians = (taken: Map<K, number[]>) => {
    const out = {} as Record<K, number>;
    for (const [name, list] of taken) out[name] = list.toSorted((x, y) => x - y)[Math.floor(list.length / 2)];
    return out;
  };
  const [forward, reversed] = samples.map(medians);
  return { forward, reversed };
}
