/**
 * The base-document JSON Schema (2020-12): reference rules, fragment lookup at a
 * data path, and validation of written values with ajv.
 *
 * Only local `#/$defs/<Name>` references are allowed; they may recurse.
 *
 * @module
 */
import { Ajv2020, type Options as Ajv2020Options, type ValidateFunction } from "ajv/dist/2020.js";
import { formatLimitDefinition } from "ajv-formats/dist/limit.js";
import type { Finding, SchemaViolation } from "../errors.ts";
import { cloneJson, isObject, type Json, type JsonObject, setMember } from "../json/value.ts";
import { URI_RESOLVER } from "../json/uri.ts";
import { LruCache } from "../expr/lru.ts";
import { formatPath, type Path, pointerToPath, type Segment, WILDCARD } from "../json/path.ts";
import type { Chunks } from "../pacing.ts";
import { ajvRegExpEngine, compilePattern, RegexLimitError, type RegexLimits } from "../expr/regex.ts";
import { formatTable, loadedFormats } from "../expr/re2.ts";

/** A local reference to a definition: `#/$defs/<Name>`. */
export const LOCAL_REF = /^#\/\$defs\/([^/]+)$/;
const SCHEMA_KEY = "model";
/** Keywords whose values are data, not schemas. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(["enum", "const", "default", "examples"]);
/** Keywords whose values map names to schemas: a member there named `const` is a schema, not data. */
const NAME_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);

/**
 * Whether member `key` of a schema node holds schemas to walk (not data), and whether its value is a name map;
 * `names`: the node itself is one, its keys names.
 */
export function schemaMember(key: string, names: boolean | undefined): [walk: boolean, names: boolean] {
  return [!!names || !DATA_KEYWORDS.has(key), !names && NAME_MAPS.has(key)];
}

/** Reference errors and unused-definition warnings of a schema. */
export function checkSchemaReferences(schema: unknown): { errors: Finding[]; warnings: Finding[] } {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const defs = isObject(schema) && isObject(schema.$defs) ? schema.$defs : {};
  const used = new Set<string>();
  const visit = (node: unknown, location: string, names?: boolean) => {
    if (Array.isArray(node)) {
      node.forEach((n, i) => visit(n, `${location}[${i}]`));
      return;
    }
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const here = `${location}.${key}`;
      const [walk, inNames] = schemaMember(key, names);
      if ((key === "$ref" || key === "$dynamicRef") && typeof value === "string") {
        const m = LOCAL_REF.exec(value);
        const name = m && decodeDefName(m[1]);
        if (key === "$dynamicRef" || !name) {
          errors.push({
            location: here,
            message: `unsupported reference '${value}': only local '#/$defs/<Name>' references are allowed`,
          });
        } else if (!(name in defs)) {
          errors.push({ location: here, message: `dangling reference '${value}': no such definition` });
        } else {
          used.add(name);
        }
      } else if (walk) {
        visit(value, here, inNames);
      }
    }
  };
  visit(schema, "schema");
  for (const name of Object.keys(defs)) {
    if (!used.has(name)) {
      warnings.push({ location: `schema.$defs.${name}`, message: `definition '${name}' is not referenced` });
    }
  }
  return { errors, warnings };
}

/** The definition name a `#/$defs/<token>` reference names (a malformed escape left as it is: it dangles). */
export function decodeDefName(token: string): string {
  try {
    token = decodeURIComponent(token);
  } catch {
    // A malformed escape names no definition: the reference dangles.
  }
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/**
 * The `$defs` entries `node` reaches by local refs, transitively: all a fragment compiled alone needs (the
 * whole `$defs` for each would make compiling every field quadratic). Data naming a `$ref` may add some.
 */
function reachedDefs(
  node: unknown,
  defs: JsonObject = {},
  reached = new Map<string, Json>(),
): Map<string, Json> {
  if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      const token = key === "$ref" && typeof value === "string" && LOCAL_REF.exec(value)?.[1];
      const name = token && decodeDefName(token);
      if (!name) reachedDefs(value, defs, reached);
      else if (!reached.has(name) && Object.hasOwn(defs, name)) {
        reached.set(name, defs[name]);
        reachedDefs(defs[name], defs, reached);
      }
    }
  }
  return reached;
}

function pointerToken(token: string | number): string {
  return encodeURIComponent(String(token).replace(/~/g, "~0").replace(/\//g, "~1"));
}

/** The key of the names a node's `additionalProperties` schema describes alike. */
const OTHER_NAMES: unique symbol = Symbol("other names");

/**
 * Under which key a node keeps its child at `seg`: the name or index where the
 * child depends on it, {@link OTHER_NAMES} or `[*]` where every other name or
 * index has the same child; null where the child depends on a name the schema
 * does not bound.
 */
function childKey(schema: JsonObject, seg: Segment): Segment | typeof OTHER_NAMES | null {
  if (typeof seg === "number") {
    const prefixed = Array.isArray(schema.prefixItems) && seg !== WILDCARD && seg < schema.prefixItems.length;
    return !prefixed ? WILDCARD : seg >= 0 ? seg : null;
  }
  if (isObject(schema.properties) && Object.hasOwn(schema.properties, seg)) return seg;
  const plain = !["patternProperties", "allOf", "anyOf", "oneOf"].some((k) => schema[k] !== undefined);
  // `additionalProperties: false` names the property in its refusal: not kept.
  return plain && isObject(schema.additionalProperties) && schema.unevaluatedProperties !== false
    ? OTHER_NAMES
    : null;
}

/** A schema node located in the root schema. */
export interface Fragment {
  schema: JsonObject;
  /** URI-fragment JSON pointer of the node in the root schema. */
  pointer: string;
  /**
   * Where a value written here is validated, when not at `pointer`: the node
   * as written, for a `$ref` with sibling keywords (`{"$ref": …, "maximum": 5}`),
   * whose referenced node alone would not check the siblings.
   */
  validatedAt?: string;
  /**
   * The nodes a `$ref` with sibling keywords combines, when the siblings also
   * have children (`properties`, `items`, …) that merging would hide: the
   * nodes as written, then the referenced node. A child is looked up in each,
   * in that order, at its own place.
   */
  parts?: Fragment[];
}

/** Keywords under which a node's children are found: siblings of a `$ref` with one of them are not merged away. */
const CHILD_KEYWORDS = [
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "allOf",
  "anyOf",
  "oneOf",
  "prefixItems",
  "items",
];

/** Result of locating a data path in the schema. */
export type Location =
  | { kind: "fragment"; fragment: Fragment }
  | { kind: "unknown" }
  | { kind: "forbidden"; keyword: string; message: string };

/** ajv's options for base schemas. */
const AJV_OPTIONS = {
  strict: false,
  allErrors: true,
  logger: false,
  multipleOfPrecision: 9,
  uriResolver: URI_RESOLVER,
} as const;

/**
 * Where ajv checks a value with a format: a schema's own `format`s (and
 * `formatMinimum`, …) and the keywords the 2020-12 meta-schema gives one
 * (`$id`, `$ref`, `pattern`, …). A schema with none of them compiles without
 * the format table, which browsers load on demand (engine/expr/re2.ts).
 */
const FORMAT_KEYWORDS =
  /"(?:format\w*|\$schema|\$id|\$ref|\$dynamicRef|\$vocabulary|pattern|patternProperties)":/;

/**
 * An ajv instance for base schemas: {@link AJV_OPTIONS} and `options`, with
 * ajv-formats' keywords and, when `formats` (or once it is loaded anyway),
 * every format of its table.
 */
function baseSchemaAjv(formats: boolean, options: Ajv2020Options = {}): Ajv2020 {
  const ajv = new Ajv2020({ ...AJV_OPTIONS, ...options });
  const table = formats ? formatTable() : loadedFormats();
  for (const [name, format] of Object.entries(table ?? {})) ajv.addFormat(name, format);
  ajv.addKeyword(formatLimitDefinition);
  return ajv;
}

/** The meta-schema checkers, without and with the format table. */
const metaSchemaAjv: [Ajv2020?, Ajv2020?] = [];

/**
 * The ajv instance that checks base schemas against the JSON Schema 2020-12
 * meta-schema (its `validateSchema` throws ajv's "schema is invalid: …"),
 * shared so the meta-schema is compiled once per process rather than once per
 * compiled spec (a create, a validation, a load at startup, a test run).
 */
function metaSchemaCheck(formats: boolean): Ajv2020 {
  const withTable = formats || loadedFormats() !== undefined;
  return metaSchemaAjv[Number(withTable)] ??= baseSchemaAjv(withTable);
}

/**
 * ajv holding one base schema, and its validators by schema pointer (pointers
 * name places in the schema, so they are bounded by it) and, for fragments
 * that refer to nothing, by their JSON text: identical fragments (a thousand
 * `{"type": "number"}` fields) share one compiled validator instead of
 * compiling one each (about half a millisecond a fragment).
 */
interface CompiledSchema {
  ajv: Ajv2020;
  /** The schema as compiled (a copy), whose nodes are compiled one by one. */
  root: JsonObject;
  /** Whether a nested `$id` or anchor moves references: fragments are then compiled in the root's context. */
  placed: boolean;
  /**
   * The root's `properties` names when its whole-document check is the root
   * with each of them `true` followed by their own checks (no keyword ajv
   * checks after `properties` is present), else null: ajv's one function for
   * a large root takes seconds to generate.
   */
  fields: string[] | null;
  validators: Map<string, ValidateFunction | null>;
  byContent: Map<string, ValidateFunction | null>;
  /** Whether any node may carry an {@link ENCLOSING_KEYWORDS} keyword (few do: writes skip the check). */
  enclosing: boolean;
  /** Whether any `readOnly` node may hold members (read-only derived leaves do not). */
  readOnlyContainers: boolean;
  /** Whether any node may be `readOnly`. */
  readOnly: boolean;
  /** Whether some `properties` may name `__proto__`: what ajv compiles then goes through {@link protoChecked}. */
  proto: boolean;
}

/**
 * A copy of schema `node` where each `properties` member named `__proto__` is
 * also a `patternProperties` entry: ajv's `properties` skips that name, so a
 * value's own `__proto__` member went unchecked wherever a whole value is
 * validated (a restore, an evolution's stranded values, a container written whole).
 */
function protoChecked(node: Json, names?: boolean): Json {
  if (Array.isArray(node)) return node.map((n) => protoChecked(n));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    const [walk, inNames] = schemaMember(key, names);
    setMember(out, key, walk ? protoChecked(value, inNames) : value);
  }
  const { properties, patternProperties = {} } = out;
  if (
    !names && isObject(properties) && Object.hasOwn(properties, "__proto__") && isObject(patternProperties)
  ) {
    const prior = patternProperties[PROTO_PATTERN];
    const schema = properties.__proto__;
    out.patternProperties = {
      ...patternProperties,
      [PROTO_PATTERN]: prior === undefined ? schema : { allOf: [prior, schema] },
    };
  }
  return out;
}

const PROTO_PATTERN = "^__proto__$";

const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

/** Whether some node of `schema` is `readOnly` and not confined by its `type` to scalars. */
function hasReadOnlyContainer(schema: unknown, depth = 0): boolean {
  if (depth > 200 || schema === null || typeof schema !== "object") return false;
  if (Array.isArray(schema)) return schema.some((item) => hasReadOnlyContainer(item, depth + 1));
  const node = schema as JsonObject;
  if (node.readOnly === true) {
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (!types.every((type) => typeof type === "string" && SCALAR_TYPES.has(type))) return true;
  }
  return Object.values(node).some((member) => hasReadOnlyContainer(member, depth + 1));
}

/**
 * A container's keywords that judge it as a whole, so a write under it can
 * break them: its upper bounds (one element too many, a duplicate, a name the
 * schema refuses) and its conditional and combining keywords (`if`/`then`,
 * `allOf` across members, a whole-object `enum`).
 */
export const ENCLOSING_KEYWORDS = [
  "maxItems",
  "maxProperties",
  "uniqueItems",
  "maxContains",
  "propertyNames",
  "if",
  "then",
  "else",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "dependentSchemas",
  "const",
  "enum",
  "unevaluatedProperties",
  "unevaluatedItems",
];

const ENCLOSING_TEXT = new RegExp(`"(?:${ENCLOSING_KEYWORDS.join("|")})"`);

/**
 * What a write under a container is not refused for: lower bounds, which a
 * document filled field by field passes through states below (a container
 * written whole meets them), and the combinators' own verdicts, which repeat
 * the concrete reasons reported beside them (or, for `not`, give none).
 */
const NOT_JUDGED_UNDER = new Set([
  "required",
  "minItems",
  "minProperties",
  "dependentRequired",
  "minContains",
  "contains",
  "if",
  "anyOf",
  "oneOf",
  "not",
]);

/** Keywords ajv checks after `properties` (or instead of a root's keywords): a root with one is checked whole. */
const AFTER_PROPERTIES =
  /^(?:\$ref|patternProperties|dependentSchemas|dependentRequired|dependencies|unevaluated\w+)$/;

/** Keywords that make a fragment's meaning depend on where it is (or make it a place others refer to). */
const PLACE_KEYWORDS = /"\$(?:ref|dynamicRef|recursiveRef|id|anchor|dynamicAnchor|recursiveAnchor)"/;

/** Distinct base schemas kept compiled (per clock), most recently used first. */
const COMPILED_SCHEMAS = 64;

const compiledSchemas = new WeakMap<RegexLimits["now"], LruCache<string, CompiledSchema>>();

/**
 * The compiled form of a base schema, shared by every spec with the same
 * schema under the same regex limits: models made from one template, a model
 * loaded at startup, evolved or dry-run again (compiling a schema and its
 * fragments cost several milliseconds a model). Throws ajv's message when the
 * schema is not valid.
 */
function compiledSchema(root: JsonObject, limits: RegexLimits): CompiledSchema {
  let cache = compiledSchemas.get(limits.now);
  if (!cache) compiledSchemas.set(limits.now, cache = new LruCache(COMPILED_SCHEMAS));
  const key = `${limits.maxInput}:${limits.timeoutMs}:${JSON.stringify(root)}`;
  let compiled = cache.get(key);
  if (!compiled) {
    const formats = FORMAT_KEYWORDS.test(key);
    metaSchemaCheck(formats).validateSchema(root, true);
    // Checked above, once: this instance would compile the meta-schema for itself (about 20 ms a spec).
    const ajv = baseSchemaAjv(formats, {
      validateSchema: false,
      code: { regExp: ajvRegExpEngine(limits), optimize: false },
    });
    // A copy: fragments are compiled from it later, whatever becomes of the spec that brought it.
    const copy = cloneJson(root) as JsonObject;
    const placed = /"\$(?:id|anchor|dynamicAnchor)"/.test(key);
    // Nested places need ajv's view of the whole root, which compiles it whole (here, so errors surface at create).
    const proto = key.includes('"__proto__"');
    if (placed) {
      ajv.addSchema(proto ? protoChecked(copy) as JsonObject : copy, SCHEMA_KEY).getSchema(SCHEMA_KEY);
    }
    compiled = {
      ajv,
      root: copy,
      placed,
      fields: !placed && isObject(copy.properties) && !Object.keys(copy).some((k) => AFTER_PROPERTIES.test(k))
        ? Object.keys(copy.properties)
        : null,
      validators: new Map(),
      byContent: new Map(),
      enclosing: ENCLOSING_TEXT.test(key),
      readOnlyContainers: hasReadOnlyContainer(root),
      readOnly: key.includes('"readOnly":true'),
      proto,
    };
    cache.set(key, compiled);
  }
  return compiled;
}

/** Whether a schema's `type` (absent: any) admits `kind`. */
export function typeAdmits(type: unknown, kind: string): boolean {
  return type === undefined || type === kind || (Array.isArray(type) && type.includes(kind));
}

/** The compiled base schema of one spec. */
export class SchemaIndex {
  readonly root: JsonObject;
  readonly #compiled: CompiledSchema;
  /** The regex limits pattern checks run under. */
  readonly regexLimits: RegexLimits;
  #rootLocation: Location | null = null;
  /** Located children by node, for the segments the schema bounds (see {@link locate}). */
  readonly #children = new WeakMap<Fragment, Map<Segment | typeof OTHER_NAMES, Location>>();

  /** Compiles the schema; throws an Error with ajv's message when it is not a valid schema. */
  constructor(schema: JsonObject, limits: RegexLimits) {
    const { $id: _id, $schema: _schema, ...root } = schema;
    this.root = root;
    this.regexLimits = limits;
    this.#compiled = compiledSchema(root, limits);
  }

  /** Follows local `$ref`s from a node. */
  #deref(fragment: Fragment): Fragment {
    let cur = fragment;
    // The node as written at each hop, and those of them with siblings.
    let written = fragment;
    const withSiblings: Fragment[] = [];
    let siblingChildren = false;
    const done = () => siblingChildren ? { ...cur, parts: [...withSiblings, written] } : cur;
    for (let hops = 0; hops < 64; hops++) {
      const ref = written.schema.$ref;
      if (typeof ref !== "string") return done();
      const m = LOCAL_REF.exec(ref);
      const defs = this.root.$defs;
      if (!m || !isObject(defs)) return done();
      const target = defs[decodeDefName(m[1])];
      if (!isObject(target)) return done();
      // a $ref with siblings keeps the siblings (2020-12 semantics): merge for lookup purposes
      const { $ref: _ref, ...siblings } = written.schema;
      if (Object.keys(siblings).length) {
        withSiblings.push({ schema: siblings, pointer: written.pointer });
        siblingChildren ||= CHILD_KEYWORDS.some((keyword) => keyword in siblings);
      }
      const { $ref: _merged, ...kept } = cur.schema;
      const merged = Object.keys(kept).length > 0;
      const validatedAt = cur.validatedAt ?? (merged ? cur.pointer : undefined);
      const pointer = `#/$defs/${m[1]}`;
      cur = {
        schema: merged ? { ...target, ...kept } : target,
        pointer,
        ...validatedAt === undefined ? {} : { validatedAt },
      };
      written = { schema: target, pointer };
    }
    return done();
  }

  /**
   * The schema node at a data path (wildcards and indices select array items).
   * Every write locates its path, so what a node's children are is kept per
   * node where the schema bounds it: its `properties` names, any array index,
   * any other name under a plain `additionalProperties` schema. Under names it
   * does not bound (pattern properties, combinators; a client chooses them)
   * the rest of the path is located afresh, keeping nothing.
   */
  locate(path: Path): Location {
    let cur: Location = this.#rootLocation ??= {
      kind: "fragment",
      fragment: this.#deref({ schema: this.root, pointer: "#" }),
    };
    let kept = true;
    for (const seg of path) {
      if (cur.kind !== "fragment") return cur;
      const key = kept && !cur.fragment.parts ? childKey(cur.fragment.schema, seg) : null;
      if (key === null) {
        kept = false;
        cur = this.#dereffed(this.#child(cur.fragment, seg));
        continue;
      }
      let known = this.#children.get(cur.fragment);
      if (!known) this.#children.set(cur.fragment, known = new Map());
      let child = known.get(key);
      if (!child) {
        known.set(
          key,
          child = this.#dereffed(this.#child(cur.fragment, typeof key === "symbol" ? seg : key)),
        );
      }
      cur = child;
    }
    return cur;
  }

  #dereffed(location: Location): Location {
    return location.kind === "fragment"
      ? { kind: "fragment", fragment: this.#deref(location.fragment) }
      : location;
  }

  #child(parent: Fragment, seg: Segment): Location {
    if (parent.parts) {
      // The first part that has the child gives it (as the first `allOf` branch naming a property does).
      let refused: Location | null = null;
      for (const part of parent.parts) {
        const child = this.#child(part, seg);
        if (child.kind === "fragment") return child;
        if (child.kind === "forbidden") refused ??= child;
      }
      return refused ?? { kind: "unknown" };
    }
    const s = parent.schema;
    const at = (schema: unknown, pointer: string): Location => {
      if (schema === false) {
        return { kind: "forbidden", keyword: "false", message: "no value is allowed here" };
      }
      return { kind: "fragment", fragment: { schema: isObject(schema) ? schema : {}, pointer } };
    };
    if (typeof seg === "string") {
      if (isObject(s.properties) && Object.hasOwn(s.properties, seg)) {
        return at(s.properties[seg], `${parent.pointer}/properties/${pointerToken(seg)}`);
      }
      if (isObject(s.patternProperties)) {
        for (const [pattern, sub] of Object.entries(s.patternProperties)) {
          try {
            if (compilePattern(pattern).test(seg)) {
              return at(sub, `${parent.pointer}/patternProperties/${pointerToken(pattern)}`);
            }
          } catch { /* an unusable pattern matches nothing */ }
        }
      }
      for (const branch of ["allOf", "anyOf", "oneOf"] as const) {
        const list = s[branch];
        if (!Array.isArray(list)) continue;
        for (let i = 0; i < list.length; i++) {
          if (!isObject(list[i])) continue;
          const sub = this.#deref({
            schema: list[i] as JsonObject,
            pointer: `${parent.pointer}/${branch}/${i}`,
          });
          if (isObject(sub.schema.properties) && Object.hasOwn(sub.schema.properties, seg)) {
            return this.#child(sub, seg);
          }
        }
      }
      if (s.additionalProperties === false || s.unevaluatedProperties === false) {
        return {
          kind: "forbidden",
          keyword: "additionalProperties",
          message: `property '${seg}' is not allowed by the schema`,
        };
      }
      if (isObject(s.additionalProperties)) {
        return at(s.additionalProperties, `${parent.pointer}/additionalProperties`);
      }
      return { kind: "unknown" };
    }
    if (Array.isArray(s.prefixItems) && seg !== WILDCARD && seg < s.prefixItems.length) {
      return at(s.prefixItems[seg], `${parent.pointer}/prefixItems/${seg}`);
    }
    if (s.items !== undefined && typeof s.items !== "boolean") return at(s.items, `${parent.pointer}/items`);
    if (s.items === false) {
      return { kind: "forbidden", keyword: "items", message: "no further array items are allowed" };
    }
    return { kind: "unknown" };
  }

  /** The resolved schema node at a path, `{}` when the schema does not describe it. */
  fragmentAt(path: Path): JsonObject {
    const loc = this.locate(path);
    return loc.kind === "fragment" ? loc.fragment.schema : {};
  }

  /** True when the schema describes an array at the (pattern) path. */
  isArrayAt(path: Path): boolean {
    const loc = this.locate(path);
    if (loc.kind !== "fragment") return false;
    const s = loc.fragment.schema;
    const type = s.type;
    return type === "array" || (Array.isArray(type) && type.includes("array")) ||
      s.items !== undefined || s.prefixItems !== undefined;
  }

  /**
   * A violation when the schema at `container` refuses the kind of container
   * a write of `address` under it creates there (`$.list.b` makes `list` an
   * object, `$.list[0]` an array).
   */
  containerViolation(container: Path, next: Segment, address: string): SchemaViolation | null {
    const kind = typeof next === "number" ? "array" : "object";
    const type = this.fragmentAt(container).type;
    if (typeAdmits(type, kind)) return null;
    const expected = Array.isArray(type) ? type.join(",") : String(type);
    return {
      path: formatPath(container),
      keyword: "type",
      message: `must be ${expected}: writing ${address} would make it ${
        kind === "array" ? "an array" : "an object"
      }`,
    };
  }

  /** True when the parent object schema lists the field in `required`. */
  isStaticallyRequired(path: Path): boolean {
    const last = path[path.length - 1];
    if (typeof last !== "string") return false;
    const parent = this.locate(path.slice(0, -1));
    if (parent.kind !== "fragment") return false;
    const required = parent.fragment.schema.required;
    return Array.isArray(required) && required.includes(last);
  }

  /** Validates a value written at a concrete path; returns every violation. */
  validateAt(path: Path, value: Json): SchemaViolation[] {
    const loc = this.locate(path);
    if (loc.kind === "forbidden") {
      return [{ path: formatPath(path), keyword: loc.keyword, message: loc.message }];
    }
    if (loc.kind === "unknown") return [];
    try {
      return this.#check(loc.fragment.validatedAt ?? loc.fragment.pointer, path, value);
    } catch (err) {
      if (err instanceof RegexLimitError) {
        return [{ path: formatPath(path), keyword: "pattern", message: err.message }];
      }
      throw err;
    }
  }

  /**
   * The validator of the schema node at `pointer`, compiled alone (with the
   * `$defs` it reaches when it refers to them) so that no lookup compiles the
   * whole root; the root's own is the one {@link CompiledSchema.fields} describes.
   */
  #validator(pointer: string): ValidateFunction | null {
    const { ajv, validators, byContent, root, placed, fields, proto } = this.#compiled;
    let validate = validators.get(pointer);
    if (validate !== undefined) return validate;
    const node = pointer.split("/").slice(1).reduce<Json>(
      (parent, token) => (parent as JsonObject)[decodeDefName(token)],
      root,
    );
    const text = pointer === "#" ? "" : JSON.stringify(node);
    const shared = text === "" || PLACE_KEYWORDS.test(text) ? undefined : text;
    validate = shared === undefined ? undefined : byContent.get(shared);
    if (validate === undefined) {
      const schema = pointer === "#" && fields
        // The names matter only to `additionalProperties` (ajv takes a while over thousands of them).
        ? {
          ...root,
          properties: root.additionalProperties === undefined
            ? {}
            : Object.fromEntries(Object.keys(root.properties as JsonObject).map((name) => [name, true])),
        }
        : text.includes('"$ref"')
        ? {
          ...node as JsonObject,
          $defs: Object.fromEntries(reachedDefs(node, root.$defs as JsonObject | undefined)),
        }
        : node;
      validate = placed
        ? ajv.getSchema(`${SCHEMA_KEY}${pointer}`) ?? null
        : ajv.compile((proto ? protoChecked(schema as JsonObject) : schema) as JsonObject);
      if (shared !== undefined) byContent.set(shared, validate);
    }
    validators.set(pointer, validate);
    return validate;
  }

  /**
   * Compiles the root's validators, each of its fields apart (identical ones
   * once), yielding between them: a schema ajv cannot compile fails here.
   */
  *prepare(): Chunks<void> {
    this.#validator("#");
    for (const name of this.#compiled.fields ?? []) {
      yield;
      this.#validator(`#/properties/${pointerToken(name)}`);
    }
  }

  /** The violations of `value` at `path` of the node at `pointer` (throws {@link RegexLimitError}). */
  #check(pointer: string, path: Path, value: Json): SchemaViolation[] {
    const validate = this.#validator(pointer);
    const found = validate && !validate(value) ? validate.errors ?? [] : [];
    const violations = found.map((e) => {
      const rel = pointerToPath(e.instancePath, value);
      const at = typeof rel === "string" ? path : [...path, ...rel];
      let message = e.message ?? "is invalid";
      if (e.keyword === "enum" && Array.isArray(e.params?.allowedValues)) {
        message += `: ${JSON.stringify(e.params.allowedValues)}`;
      }
      if (e.keyword === "additionalProperties" && e.params?.additionalProperty) {
        message += `: '${e.params.additionalProperty}'`;
      }
      return { path: formatPath(at), keyword: e.keyword, message };
    });
    const { fields } = this.#compiled;
    if (pointer !== "#" || !fields || !isObject(value)) return violations;
    // After the root's other keywords, as ajv checks them: each field defined (an inherited one too).
    for (const name of fields) {
      // An inherited `__proto__` is no member: only an own one is a field (ajv's own test, with protoChecked).
      const field = name === "__proto__" && !Object.hasOwn(value, name)
        ? undefined
        : (value as Record<string, Json>)[name];
      if (field !== undefined) {
        violations.push(...this.#check(`#/properties/${pointerToken(name)}`, [name], field));
      }
    }
    return violations;
  }

  /** Whether some node of the schema is `readOnly`, so a container written whole must keep such members. */
  get hasReadOnly(): boolean {
    return this.#compiled.readOnly;
  }

  /** Whether a `readOnly` node of the schema may hold members, so a write must look at its containers. */
  get hasReadOnlyContainers(): boolean {
    return this.#compiled.readOnlyContainers;
  }

  /** Whether any node of the schema may carry an {@link ENCLOSING_KEYWORDS} keyword. */
  get hasEnclosingKeywords(): boolean {
    return this.#compiled.enclosing;
  }

  /**
   * What writes under the container at `path` broke of its
   * {@link ENCLOSING_KEYWORDS}: the violations of `after` that `before` (the
   * container as the writes found it) did not have, lower bounds and the
   * combinators' own verdicts aside. Empty at once for a node without such keywords.
   */
  enclosingViolations(path: Path, before: Json | undefined, after: Json): SchemaViolation[] {
    if (!this.hasEnclosingKeywords) return [];
    const fragment = this.fragmentAt(path);
    if (!ENCLOSING_KEYWORDS.some((keyword) => keyword in fragment)) return [];
    const judged = (value: Json) =>
      this.validateAt(path, value).filter((v) => !NOT_JUDGED_UNDER.has(v.keyword));
    const found = judged(after);
    if (!found.length || before === undefined) return found;
    const key = (v: SchemaViolation) => `${v.path}\u0000${v.keyword}\u0000${v.message}`;
    const known = new Set(judged(before).map(key));
    return found.filter((v) => !known.has(key(v)));
  }

  /** Validates a whole document against the root schema. */
  validateDocument(doc: Json): SchemaViolation[] {
    return this.validateAt([], doc);
  }
}
