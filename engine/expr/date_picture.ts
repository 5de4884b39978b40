/**
 * `$toMillis(timestamp, picture)` in linear time. jsonata-js matches the
 * timestamp with a regex it builds from the picture, a group per marker or
 * literal (`[f][f]` is `^([0-9]+)([0-9]+)$`, case-insensitive), on the
 * backtracking RegExp: markers that can match the same characters made it
 * polynomial (136 s for `[f][f][f][f]` and 800 digits followed by a letter).
 * For the duration of its call (synchronous: nothing else runs meanwhile) the
 * global `RegExp` is one that runs that regex on the evaluation's RE2 engine,
 * which picks the same groups (leftmost-first, as backtracking does) in
 * linear time.
 *
 * @module
 */

import { failure } from "./guard.ts";

/**
 * Longest pattern a picture may make, in characters of jsonata-js's regex
 * with each repeat count `{n}` counted n times: RE2 compiles and runs it in
 * time proportional to that (a words marker, `[Yw]`, makes about 550).
 */
export const MAX_PATTERN = 1500;

/** The RegExp-like constructor of an evaluation's regex engine (`regex_engine.ts`). */
type RegexEngine = new (
  literal: { source: string; flags: string },
) => { exec(input: string): string[] | null };

/**
 * UTF-16 units as JavaScript's case-insensitive non-Unicode regexes compare
 * them: upper-cased, unless that takes two units or makes a non-ASCII unit
 * ASCII. RE2 folds case by Unicode's orbits instead (`k` matches the Kelvin
 * sign), so regex and timestamp are both mapped and compared case-sensitively.
 */
function canonical(text: string): string {
  return text.replace(/[^]/g, (unit) => {
    const upper = unit.toUpperCase();
    return upper.length > 1 || (unit > "\x7f" && upper < "\x80") ? unit : upper;
  });
}

/** Runs `parse` (jsonata-js's synchronous `$toMillis` with a picture) with its regex on `Engine`. */
export function parsedWith<T>(Engine: RegexEngine, parse: () => T): T {
  const native = RegExp;
  globalThis.RegExp = function (source: string, flags: string) {
    new native(source, flags); // JavaScript's syntax errors (a zone separator such as `(`), as jsonata-js's
    let size = source.length;
    for (const [, count] of source.matchAll(/\{(\d+)\}/g)) size += Number(count);
    if (size > MAX_PATTERN) {
      throw failure("U1004", `a picture's pattern of ${size} is over the limit of ${MAX_PATTERN}`);
    }
    // An unescaped `.` (a zone separator) does not match JavaScript's line terminators either.
    const dot = canonical(source).replace(/\\[^]|\./g, (m) => m === "." ? "[^\n\r\u2028\u2029]" : m);
    const re = new Engine({ source: dot, flags: "" });
    return {
      exec(input: string) {
        const groups = re.exec(canonical(input));
        let at = 0;
        // The groups tile the whole timestamp (`^(…)(…)$`): each starts where the one before ended.
        return groups && groups.map((group, i) => i ? input.slice(at, at += group.length) : input);
      },
    };
  } as unknown as RegExpConstructor;
  try {
    return parse();
  } finally {
    globalThis.RegExp = native;
  }
}
