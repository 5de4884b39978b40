/**
 * `$split` by a string separator, counted before it is built and built in
 * paced steps.
 *
 * jsonata-js calls `str.split(separator, limit)`: 40 million characters split
 * into as many pieces took 1.5 to 3.9 s in that one native call, and only the
 * evaluation's exit hook charged the result, after it was built. Here the
 * pieces are counted first (a walk of `indexOf` calls), charged by the caller
 * as they are counted, and then cut out by `slice`; the caller's pacing runs
 * every {@link PIECES_PER_PACE} pieces of either walk.
 *
 * @module
 */
import type { Pace } from "./code_points.ts";

/** Pieces counted or cut between two calls of the pacing callback. */
export const PIECES_PER_PACE = 1 << 16;

/**
 * `str.split(separator, limit)` for a string `separator` (`limit` as
 * `String.prototype.split` takes it: ToUint32, absent for no limit).
 * `charge(count)` is called for every piece (in batches) before any is cut.
 */
export async function splitByString(
  str: string,
  separator: string,
  limit: number | undefined,
  charge: (pieces: number) => void,
  pace: Pace,
): Promise<string[]> {
  const most = limit === undefined ? 2 ** 32 - 1 : limit >>> 0;
  let pieces = 0;
  if (most > 0 && separator === "") {
    pieces = Math.min(most, str.length);
    charge(pieces);
  } else if (most > 0) {
    // Charged as counted, so a budget refuses a split into millions of pieces early in the count.
    pieces = 1;
    for (
      let at = str.indexOf(separator);
      at >= 0 && pieces < most;
      at = str.indexOf(separator, at + separator.length)
    ) {
      if (++pieces % PIECES_PER_PACE === 0) {
        charge(PIECES_PER_PACE);
        await pace();
      }
    }
    charge(pieces % PIECES_PER_PACE);
  }
  const out: string[] = [];
  // An empty separator splits into UTF-16 units; a piece ends at the next separator (or the end).
  for (let n = 0, from = 0; n < pieces; n++) {
    if (n % PIECES_PER_PACE === PIECES_PER_PACE - 1) await pace();
    const at = separator === "" ? from + 1 : str.indexOf(separator, from);
    const end = at < 0 ? str.length : at;
    out.push(str.slice(from, end));
    from = end + separator.length;
  }
  return out;
}
