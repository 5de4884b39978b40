/**
 * `get_state`'s narrowing (SPEC.md "MCP tools"): `paths` keeps only the named
 * subtrees, spliced back at their addresses; `depth` then collapses containers
 * nested deeper than the limit into compact markers, so an agent can look at
 * the shape of a large document before reading parts of it.
 *
 * @module
 */
import { badRequest } from "../errors.ts";
import { expandPattern, getAt, memberAt } from "../json/document.ts";
import { isContainer, isObject, type Json, type JsonObject, setMember } from "../json/value.ts";
import { parsePath, type Segment } from "../json/path.ts";

/** The marker a collapsed container is replaced with. */
export function collapsedMarker(value: JsonObject | Json[]): string {
  if (Array.isArray(value)) return `<array with ${value.length} item${value.length === 1 ? "" : "s"}>`;
  const n = Object.keys(value).length;
  return `<object with ${n} field${n === 1 ? "" : "s"}>`;
}

/** Writes `value` at `path` into `doc`, creating containers (arrays for index segments). */
function spliceAt(doc: JsonObject, path: readonly Segment[], value: Json): void {
  let node: JsonObject | Json[] = doc;
  path.forEach((seg, i) => {
    // Own members only, set as data: a `__proto__` member must neither lead to nor replace the prototype.
    const existing = memberAt(node, seg);
    const member = i === path.length - 1
      ? value
      : isContainer(existing)
      ? existing
      : typeof path[i + 1] === "number"
      ? []
      : {};
    if (member !== existing) {
      if (Array.isArray(node)) node[seg as number] = member;
      else setMember(node, seg as string, member);
    }
    if (isContainer(member)) node = member;
  });
  // Index segments leave holes in arrays created here; JSON has no holes, so they read as null.
  fillHoles(doc);
}

function fillHoles(node: Json): void {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      if (!(i in node)) node[i] = null;
      else fillHoles(node[i]);
    }
  } else if (isObject(node)) {
    for (const value of Object.values(node)) fillHoles(value);
  }
}

/** Only the subtrees at `paths` (wildcards expand; absent addresses are skipped). */
export function selectPaths(state: Json, paths: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const address of paths) {
    const parsed = parsePath(address);
    if (!parsed.ok) throw badRequest(`Invalid address in 'paths': ${parsed.message}`);
    if (parsed.path.length === 0) return isObject(state) ? state : out;
    for (const concrete of expandPattern(state, parsed.path)) {
      const value = getAt(state, concrete);
      if (value !== undefined) spliceAt(out, concrete, value);
    }
  }
  return out;
}

/** Collapses containers nested more than `depth` levels below the root. */
export function limitDepth(value: Json, depth: number, level = 0): Json {
  if (value === null || typeof value !== "object") return value;
  if (level > depth) return collapsedMarker(value);
  if (Array.isArray(value)) return value.map((v) => limitDepth(v, depth, level + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, limitDepth(v, depth, level + 1)]));
}

/** Applies `paths`, then `depth`, to a merged state. */
export function narrowState(state: Json, options: { paths?: readonly string[]; depth?: number }): Json {
  const selected = options.paths ? selectPaths(state, options.paths) : state;
  return options.depth === undefined ? selected : limitDepth(selected, options.depth);
}
