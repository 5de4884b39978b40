/**
 * Typos in expressions: a read of a field the schema does not declare and no
 * derivation produces (`qtty * 2` in a spec whose schema has `qty`) would
 * leave the value silently missing forever. Each such read is a warning at
 * the expression, naming the field and the nearest declared name. Free-form
 * objects (no `properties`, or `additionalProperties` allowed) are not judged.
 *
 * @module
 */
import type { Finding } from "../errors.ts";
import { PathIndex } from "../json/path_index.ts";
import { formatPath, pathsOverlap, type Segment, WILDCARD } from "../json/path.ts";
import { isObject } from "../json/value.ts";
import { nearestName } from "../nearest.ts";
import type { CompiledNode } from "./nodes.ts";
import { type SchemaIndex, typeAdmits } from "./schema_index.ts";

/** The spec section of each kind of node whose expression is an entry's `expr` (an effect's are several). */
const SECTIONS = { DERIVED: "derivations", META: "metaDerivations", CONSTRAINT: "constraints" };

/** Where a node's expression is written in the spec. */
export function locationOf(node: CompiledNode): string {
  return node.kind === "EFFECT" ? `effects[${node.index}]` : `${SECTIONS[node.kind]}[${node.index}].expr`;
}

/**
 * The first segment of `path` the schema does not declare (under a parent that
 * declares its members and no others, refuses it, or whose `type` has no such
 * member: a scalar's), with that parent's member names; null when every
 * segment is declared or a free-form object is reached.
 */
export function undeclared(
  schema: SchemaIndex,
  path: readonly Segment[],
): { at: number; names: string[] } | null {
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const location = schema.locate(path.slice(0, i + 1));
    if (location.kind === "fragment") continue;
    const parent = schema.fragmentAt(path.slice(0, i));
    const names = isObject(parent.properties) ? Object.keys(parent.properties) : [];
    // Refused (`additionalProperties: false`, an index past `items: false`; `[*]` may be a tuple's first ones),
    // or a child of a value whose type has none (`$.qty.foo` of a number, `$.name[0]` of a string): never there.
    const refused = location.kind === "forbidden" && seg !== WILDCARD ||
      !typeAdmits(parent.type, typeof seg === "string" ? "object" : "array");
    if (refused) return { at: i, names };
    if (typeof seg !== "string") continue;
    const closed = isObject(parent.properties) && parent.additionalProperties === undefined &&
      parent.patternProperties === undefined;
    return closed ? { at: i, names } : null;
  }
  return null;
}

/**
 * What `path` names that the schema does not declare and no derivation produces:
 * the first such field (`key`) and the message's end, `'$.x', which the schema
 * does not declare …` with the nearest declared name; null when nothing is.
 */
export function undeclaredField(
  schema: SchemaIndex,
  derivedTargets: readonly Segment[][],
  path: readonly Segment[],
  produced: PathIndex<Segment[]>,
): { key: string; message: string } | null {
  if (produced.overlapsAny(path)) return null;
  const found = undeclared(schema, path);
  if (!found) return null;
  const field = path.slice(0, found.at + 1);
  const key = formatPath(field);
  const parent = field.slice(0, -1);
  const derivedHere = derivedTargets
    .filter((t) => t.length > parent.length && pathsOverlap(t.slice(0, parent.length), parent))
    .map((t) => t[parent.length])
    .filter((seg): seg is string => typeof seg === "string" && seg !== String(WILDCARD));
  const name = field[field.length - 1];
  const suggestion = typeof name === "string" && nearestName(name, [...found.names, ...derivedHere]);
  return {
    key,
    message: `'${key}', which the schema does not declare and no derivation produces` +
      (suggestion ? ` (did you mean '${formatPath([...parent, suggestion])}'?)` : ""),
  };
}

/** Warnings for reads of undeclared, underived fields (`derivedTargets`: effects' status paths too). */
export function undeclaredReads(
  nodes: readonly CompiledNode[],
  schema: SchemaIndex,
  derivedTargets: readonly Segment[][],
): Finding[] {
  const warnings: Finding[] = [];
  const produced = new PathIndex(derivedTargets, (target) => target);
  for (const node of nodes) {
    const seen = new Set<string>();
    // A constraint's own `path` is one of its reads: an unknown one is the path's mistake, not the expression's.
    const paths = node.kind === "CONSTRAINT" ? [node.constraint.path].flat() : [];
    for (const read of node.reads) {
      const found = undeclaredField(schema, derivedTargets, read.path, produced);
      if (!found || seen.has(found.key)) continue;
      seen.add(found.key);
      // In a per-element expression a bare name is read from the root; the element is `$parent`, when it has it.
      const element = node.elementPattern;
      const hint = element && !undeclaredField(schema, derivedTargets, [...element, ...read.path], produced);
      const j = paths.indexOf(formatPath(read.path));
      warnings.push({
        location: j < 0
          ? locationOf(node)
          : `constraints[${node.index}].path` + (paths.length > 1 ? `[${j}]` : ""),
        message: `reads ${found.message}` + (hint ? `; per element: '$parent${found.key.slice(1)}'` : ""),
      });
    }
  }
  return warnings;
}
