/**
 * "Did you mean …?": the known name nearest to a mistyped one, by edit
 * distance. Used for unknown configuration keys and for expression reads of
 * fields a spec never declares.
 *
 * @module
 */

/** Edit distance (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

/** ` (did you mean 'x'?)` for `suggestion`, by default the candidate nearest to `name`; "" when none is. */
export function didYouMean(
  name: string,
  candidates: readonly string[],
  suggestion = nearestName(name, candidates),
): string {
  return suggestion ? ` (did you mean '${suggestion}'?)` : "";
}

/** The nearest candidate within a third of the name's length, if any. */
export function nearestName(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    // The lengths alone rule it out: no quadratic distance of a 1 MB name.
    if (Math.abs(name.length - candidate.length) >= bestDistance) continue;
    const d = distance(name, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}
