/**
 * Where a validation finding sits in the JSON text of a spec: its `location`
 * (`derivations[0].expr`, `schema.properties.qty`, `id`) followed through
 * the JSON syntax tree of the editor (lezer's JSON grammar) to the value's
 * character range; the whole document when it cannot be followed.
 *
 * @module
 */
import type { SyntaxNode, Tree } from "@lezer/common";

/**
 * The members and indexes of a finding location (`a.b[2].c` → `["a","b",2,"c"]`); a member quoted in
 * brackets, as a test's or a mutation's address is (`given['$.a.b']`), is one member, dots and all.
 */
export function locationSegments(location: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const match of location.matchAll(/\['((?:[^']|'(?!\]))*)'\]|([^.[\]]+)|\[(\d+)\]/g)) {
    out.push(match[3] !== undefined ? Number(match[3]) : match[1] ?? match[2]);
  }
  return out;
}

function children(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) out.push(child);
  return out;
}

const VALUE_TYPES = new Set(["Object", "Array", "String", "Number", "True", "False", "Null"]);

/** The `{from, to}` of the value at `location` in `text`, else of the whole document. */
export function locate(tree: Tree, text: string, location: string): { from: number; to: number } {
  let node: SyntaxNode | null = children(tree.topNode).find((c) => VALUE_TYPES.has(c.name)) ?? null;
  let found = node;
  for (const segment of locationSegments(location)) {
    if (!node) break;
    let next: SyntaxNode | null = null;
    if (typeof segment === "number" && node.name === "Array") {
      next = children(node).filter((c) => VALUE_TYPES.has(c.name))[segment] ?? null;
    } else if (node.name === "Object") {
      for (const property of children(node).filter((c) => c.name === "Property")) {
        const name = property.getChild("PropertyName");
        if (name && JSON.parse(text.slice(name.from, name.to)) === String(segment)) {
          next = children(property).find((c) => VALUE_TYPES.has(c.name)) ?? name;
          break;
        }
      }
    }
    node = next;
    if (node) found = node;
    else break;
  }
  return found ? { from: found.from, to: found.to } : { from: 0, to: Math.min(1, text.length) };
}
