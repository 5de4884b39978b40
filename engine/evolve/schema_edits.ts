/**
 * The targeted schema tier of an evolution, applied to a copy of the schema in
 * this order: `upsertSchemaDefs`, `removeSchemaNodes`, `upsertSchemaNodes`,
 * `removeSchemaDefs` (a definition is refused while the resulting schema still
 * references it, so a node and the definition it used can go together).
 *
 * A schema node is addressed by a canonical data path: a member name steps into
 * `properties`, `[*]` into `items`. Missing intermediate nodes are created as
 * `{type: "object", properties: {}}` or `{type: "array"}` by what the next
 * segment needs; a path may not pass through a `$ref` (edit the definition).
 *
 * @module
 */
import type { Finding } from "../errors.ts";
import { isObject, type Json, type JsonObject, setMember } from "../json/value.ts";
import { ownMember } from "../json/wide_object.ts";
import { formatPath, parsePath, type Segment, WILDCARD } from "../json/path.ts";
import type { SpecEvolution } from "./evolution.ts";
import { decodeDefName, LOCAL_REF, schemaMember } from "../model/schema_index.ts";

/** Where a data path's schema node lives: `container[key]`, owned by the schema node `parent`. */
interface Slot {
  parent: JsonObject;
  container: JsonObject;
  key: string;
  location: string;
}

function admits(node: JsonObject, type: "object" | "array"): boolean {
  const declared = node.type;
  return declared === undefined || declared === type || (Array.isArray(declared) && declared.includes(type));
}

function freshNode(next: Segment): JsonObject {
  return next === WILDCARD ? { type: "array" } : { type: "object", properties: {} };
}

function memberLocation(location: string, name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `${location}.${name}` : `${location}['${name}']`;
}

/**
 * Walks the schema along `path` to the slot of its last segment, creating
 * missing intermediate nodes when `create` is set. Returns a message when the
 * path cannot be followed.
 */
function findSlot(root: JsonObject, path: readonly Segment[], create: boolean): Slot | string {
  let node = root;
  let location = "schema";
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (node.$ref !== undefined) {
      return `${formatPath(path)} passes through the $ref at ${location} ('${node.$ref}'): ` +
        "edit the definition with upsertSchemaDefs instead";
    }
    let container: JsonObject;
    let key: string;
    let here: string;
    if (seg === WILDCARD) {
      if (!admits(node, "array")) return `${location} does not describe an array`;
      container = node;
      key = "items";
      here = `${location}.items`;
    } else if (typeof seg === "string") {
      if (!admits(node, "object")) return `${location} does not describe an object`;
      if (node.properties === undefined) {
        if (!create) return `there is no schema node at ${formatPath(path)}`;
        node.properties = {};
      }
      if (!isObject(node.properties)) return `${location}.properties is not an object`;
      container = node.properties;
      key = seg;
      here = memberLocation(`${location}.properties`, seg);
    } else {
      return `${formatPath(path)}: address array items with [*], not an index`;
    }
    if (i === path.length - 1) return { parent: node, container, key, location: here };
    if (ownMember(container, key) === undefined) {
      if (!create) return `there is no schema node at ${formatPath(path)}`;
      setMember(container, key, freshNode(path[i + 1]));
    }
    const child = ownMember(container, key);
    if (!isObject(child)) return `${here} is a boolean schema: it has no members to edit`;
    node = child;
    location = here;
  }
  return "the root schema is replaced with newSchema, not edited as a node";
}

/** Sets (true) or clears (false) `name` in the `required` list of `parent`. */
function setRequired(parent: JsonObject, name: string, required: boolean): void {
  const list = Array.isArray(parent.required) ? parent.required.filter((r) => r !== name) : [];
  if (required) list.push(name);
  if (list.length) parent.required = list;
  else delete parent.required;
}

function parseNodePath(text: string, location: string, findings: Finding[]): Segment[] | null {
  const parsed = parsePath(text);
  if (!parsed.ok) {
    findings.push({ location, message: parsed.message });
    return null;
  }
  return parsed.path;
}

/** Every local `$ref` in a schema: the definition name it names and where it stands. */
export function definitionReferences(schema: Json): { name: string; location: string }[] {
  const out: { name: string; location: string }[] = [];
  const visit = (node: Json, location: string, names?: boolean) => {
    if (Array.isArray(node)) return node.forEach((n, i) => visit(n, `${location}[${i}]`));
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const here = memberLocation(location, key);
      const match = key === "$ref" && typeof value === "string" ? LOCAL_REF.exec(value) : null;
      const [walk, inNames] = schemaMember(key, names);
      if (match) out.push({ name: decodeDefName(match[1]), location: here });
      else if (walk) visit(value, here, inNames);
    }
  };
  visit(schema, "schema");
  return out;
}

/** Applies the targeted schema members of `evolution` to `schema`, in place. */
export function editSchema(schema: JsonObject, evolution: SpecEvolution, findings: Finding[]): void {
  const removedDefs = evolution.removeSchemaDefs ?? [];
  for (const [name, definition] of Object.entries(evolution.upsertSchemaDefs ?? {})) {
    if (removedDefs.includes(name)) {
      findings.push({
        location: `upsertSchemaDefs.${name}`,
        message: "is both upserted and removed (removeSchemaDefs)",
      });
      continue;
    }
    if (schema.$defs === undefined) schema.$defs = {};
    if (!isObject(schema.$defs)) {
      findings.push({ location: "upsertSchemaDefs", message: "the schema's $defs is not an object" });
      break;
    }
    setMember(schema.$defs, name, definition);
  }

  const removedNodes = new Set<string>();
  (evolution.removeSchemaNodes ?? []).forEach((text, i) => {
    const location = `removeSchemaNodes[${i}]`;
    const path = parseNodePath(text, location, findings);
    if (!path) return;
    removedNodes.add(formatPath(path));
    const slot = findSlot(schema, path, false);
    if (typeof slot === "string") return findings.push({ location, message: slot });
    if (ownMember(slot.container, slot.key) === undefined) {
      return findings.push({ location, message: `there is no schema node at ${formatPath(path)}` });
    }
    delete slot.container[slot.key];
    if (path[path.length - 1] !== WILDCARD) setRequired(slot.parent, slot.key, false);
  });

  (evolution.upsertSchemaNodes ?? []).forEach((edit, i) => {
    const location = `upsertSchemaNodes[${i}]`;
    const path = parseNodePath(edit.path, `${location}.path`, findings);
    if (!path) return;
    if (removedNodes.has(formatPath(path))) {
      return findings.push({ location, message: `${formatPath(path)} is both upserted and removed` });
    }
    const last = path[path.length - 1];
    if (last === WILDCARD && typeof edit.required === "boolean") {
      return findings.push({
        location: `${location}.required`,
        message: "applies to object members, not array items",
      });
    }
    const slot = findSlot(schema, path, true);
    if (typeof slot === "string") return findings.push({ location: `${location}.path`, message: slot });
    setMember(slot.container, slot.key, edit.schema);
    if (typeof edit.required === "boolean") setRequired(slot.parent, slot.key, edit.required);
  });

  removedDefs.forEach((name, i) => {
    const defs = schema.$defs;
    if (!isObject(defs) || ownMember(defs, name) === undefined) {
      findings.push({
        location: `removeSchemaDefs[${i}]`,
        message: `there is no definition '${name}' in $defs`,
      });
    } else delete defs[name];
  });
  const references = definitionReferences(schema);
  removedDefs.forEach((name, i) => {
    const places = references.filter((r) => r.name === name).map((r) => r.location);
    if (places.length) {
      findings.push({
        location: `removeSchemaDefs[${i}]`,
        message: `definition '${name}' is still referenced at ${places.join(", ")}`,
      });
    }
  });
}
