/**
 * What a process used, from Linux's `/proc`: CPU time and bytes written to
 * storage, for the load benchmarks' per-mutation costs. `null` where `/proc`
 * is unavailable (other systems), so the benchmarks print "n/a" there.
 *
 * @module
 */

/** CPU seconds (user + system, all threads) process `pid` used so far. */
export function cpuSeconds(pid: number): number | null {
  try {
    const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
    const ticksPerSecond = 100;
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return null;
  }
}

/** Bytes process `pid` caused to be written to storage so far (`/proc/<pid>/io`). */
export function writtenBytes(pid: number): number | null {
  try {
    const line = Deno.readTextFileSync(`/proc/${pid}/io`).split("\n").find((l) =>
      l.startsWith("write_bytes:")
    );
    return line ? Number(line.split(":")[1]) : null;
  } catch {
    return null;
  }
}

/** A per-mutation cost from counters read before and after a round. */
export function perMutation(before: number | null, after: number | null, mutations: number): number | null {
  return before === null || after === null || !mutations ? null : (after - before) / mutations;
}

/** The median of some values (the upper one of an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
