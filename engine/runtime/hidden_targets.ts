/**
 * What a derivation reading a container whole (`$string($)`, `$keys($parent)`)
 * sees of the derived values inside it: none of those it hides (its own, and
 * those of its level and above, `DerivedExprNode.hides`), so its value is a
 * function of the base document and the levels below it, never of what it or
 * a later derivation computed before. An object left empty by hiding them is
 * left out as well (a derivation creates the objects on the way to its
 * target, so whether they exist yet says nothing about the base document);
 * array elements are kept, so indices do not move.
 *
 * @module
 */
import { type Segment, WILDCARD } from "../json/path.ts";
import { isContainer, isObject, type Json, type JsonObject, setMember } from "../json/value.ts";
import { ownMember } from "../json/wide_object.ts";

/** The patterns below one member: `HIDDEN` when the member itself is hidden. */
const HIDDEN = Symbol("hidden");
const NOTHING: readonly (readonly Segment[])[] = [];

/**
 * A copy of `value` without the locations matching `patterns` (relative to
 * it, wildcards matching any index). Every container on the way to a pattern
 * is copied, whether or not anything was hidden in it, so writes the draft
 * makes in place afterwards never show through; everything else is shared.
 */
export function withoutTargets(
  value: Json | undefined,
  patterns: readonly (readonly Segment[])[],
): Json | undefined {
  if (!isContainer(value) || patterns.length === 0) return value;
  const byMember = new Map<Segment, (readonly Segment[])[]>();
  const anyIndex: (readonly Segment[])[] = [];
  for (const pattern of patterns) {
    if (pattern[0] === WILDCARD) anyIndex.push(pattern);
    else {
      const list = byMember.get(pattern[0]);
      if (list) list.push(pattern);
      else byMember.set(pattern[0], [pattern]);
    }
  }
  const below = (key: Segment): readonly (readonly Segment[])[] | typeof HIDDEN => {
    const named = byMember.get(key);
    const found = typeof key === "number" && anyIndex.length ? [...(named ?? []), ...anyIndex] : named;
    if (!found) return NOTHING;
    return found.some((p) => p.length === 1) ? HIDDEN : found.map((p) => p.slice(1));
  };
  if (Array.isArray(value)) {
    const out: Json[] = [];
    value.forEach((element, index) => {
      const rest = below(index);
      if (rest !== HIDDEN) out.push(rest.length ? withoutTargets(element, rest) ?? null : element);
    });
    return out;
  }
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const rest = below(key);
    if (rest === HIDDEN) continue;
    let member = ownMember(value, key);
    if (member === undefined) continue;
    if (rest.length) {
      member = withoutTargets(member, rest)!;
      if (isObject(member) && Object.keys(member).length === 0) continue;
    }
    setMember(out, key, member);
  }
  return out;
}
