/**
 * The shape check of a ModelSpec: the spec is validated against
 * {@link MODEL_SPEC_SCHEMA}, the one description of its shape, and every ajv
 * error becomes a finding worded for spec authors at the offending value:
 *
 * - an unknown member: `unknown field 'foo'`, at the member when it is a
 *   top-level one, else at its object;
 * - a missing member: at the member, `<member> is required`, or the wording of
 *   the value it lacks (a missing `expr` asks for a JSONata expression);
 * - a wrong value: the wording of its schema node ({@link WORDINGS}), else
 *   `<member> must be <type>`, `must be 'a' or 'b'`, `must be one of a, b, c`;
 * - an address (any node with the address pattern) in the path parser's words,
 *   with the canonical rewrite, exactly as the compilers report it.
 *
 * Summary errors (`if`, `propertyNames`) are dropped for the error inside them,
 * and a location gets one finding: the first.
 *
 * @module
 */
import { URI_RESOLVER } from "../json/uri.ts";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import type { Finding } from "../errors.ts";
import { parseConcretePath, parsePath, pointerToLocation } from "../json/path.ts";
import { isObject, type JsonObject } from "../json/value.ts";
import { didYouMean } from "../nearest.ts";
import {
  ADDRESS_PATTERN,
  CONCRETE_ADDRESS_PATTERN,
  invalidIdMessage,
  longIdMessage,
  MODEL_SPEC_SCHEMA,
  notAReference,
} from "./model_spec_schema.ts";

/** The wording of a failing (or, `undefined`, missing) value; `name` is its member name. */
type Wording = (value: unknown, name: string) => string;

const required: Wording = (_, name) => `${name} is required`;
const expression: Wording = () => "a JSONata expression (non-empty string) is required";
const entry = (what: string): Wording => () => `${what} must be an object`;
const addressMap: Wording = (_, name) => `${name} must be an object of address to value`;

/**
 * Wordings by schema node, as a JSON Pointer into {@link MODEL_SPEC_SCHEMA}; a
 * key ending in a keyword applies to that keyword only.
 */
const WORDINGS: Record<string, Wording> = {
  "#": () => "a ModelSpec must be a JSON object",
  "#/$defs/Coordinate": (id, name) => id === undefined ? `${name} is required` : invalidIdMessage(id),
  "#/$defs/Coordinate/maxLength": longIdMessage,
  "#/$defs/Expression": expression,
  "#/properties/version/pattern": (version) => `'${version}' is not a semantic version (MAJOR.MINOR.PATCH)`,
  "#/properties/actions": () => "the 'actions' section was removed: declare effects instead",
  "#/properties/template": () => "template must be {ref: <coordinate>}",
  "#/$defs/Reference": notAReference,
  "#/properties/schema": () => "schema is required and must be a JSON Schema object",
  "#/properties/constants": () => "constants must be an object of name to value",
  "#/$defs/LibrarySignatures/additionalProperties/pattern": (signature) =>
    `'${signature}' is not a JSONata signature such as <nn:n>`,
  "#/$defs/Derivation": entry("a derivation"),
  "#/$defs/Derivation/properties/path/pattern": () => "the document root '$' cannot be derived",
  "#/$defs/MetaDerivation": entry("a meta derivation"),
  "#/$defs/Constraint": entry("a constraint"),
  "#/$defs/Constraint/properties/id": required,
  "#/$defs/Constraint/properties/id/maxLength": longIdMessage,
  "#/$defs/Constraint/properties/message": required,
  "#/$defs/Effect": entry("an effect"),
  "#/$defs/Effect/properties/id": required,
  "#/$defs/Effect/properties/id/maxLength": longIdMessage,
  "#/$defs/View/properties/id/maxLength": longIdMessage,
  "#/$defs/Component/properties/id/maxLength": longIdMessage,
  "#/$defs/Effect/properties/executor": () => "executor must be a non-empty string",
  "#/$defs/Effect/properties/payload": (payload) =>
    typeof payload === "string"
      ? expression(payload, "payload")
      : "payload must be a JSONata string or an object of JSONata strings",
  "#/$defs/DefaultValueRule": entry("a default rule"),
  "#/$defs/TestCase": entry("a test case"),
  "#/$defs/TestCase/properties/given": addressMap,
  "#/$defs/TestCase/properties/expect": addressMap,
};

/** A member name as a JSON Pointer token, and back. */
const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");
const unescape = (token: string) => token.replace(/~1/g, "/").replace(/~0/g, "~");

let pointers: Map<unknown, string> | undefined;

/**
 * The JSON Pointer of an object node of the schema (ajv reports the nodes
 * themselves); the index is built with the first invalid spec, not at start.
 */
function pointerOf(node: unknown): string | undefined {
  if (!pointers) {
    const index = new Map<unknown, string>();
    (function visit(node: unknown, pointer: string) {
      if (Array.isArray(node)) node.forEach((item, i) => visit(item, `${pointer}/${i}`));
      if (!isObject(node)) return;
      index.set(node, pointer);
      for (const [key, child] of Object.entries(node)) visit(child, `${pointer}/${escape(key)}`);
    })(MODEL_SPEC_SCHEMA, "#");
    pointers = index;
  }
  return pointers.get(node);
}

let validator: ValidateFunction | undefined;

function validate(spec: unknown): ErrorObject[] {
  validator ??= new Ajv2020({
    strict: false,
    allErrors: true,
    verbose: true,
    logger: false,
    uriResolver: URI_RESOLVER,
  })
    .compile(MODEL_SPEC_SCHEMA);
  return validator(spec) ? [] : validator.errors ?? [];
}

/**
 * Every shape problem of `spec`, one finding per location: unknown top-level
 * fields first, then in the order ajv meets them.
 */
export function checkShape(spec: unknown): Finding[] {
  const findings = new Map<string, Finding>();
  // ajv takes an own `__proto__` member for a declared property (its `in` test meets the inherited one).
  if (isObject(spec) && Object.hasOwn(spec, "__proto__")) {
    findings.set("__proto__", { location: "__proto__", message: "unknown field '__proto__'" });
  }
  const errors = validate(spec);
  const unknownField = (e: ErrorObject) => e.keyword === "additionalProperties" && e.instancePath === "";
  for (const error of [...errors.filter(unknownField), ...errors.filter((e) => !unknownField(e))]) {
    const finding = describe(error);
    if (finding && !findings.has(finding.location)) findings.set(finding.location, finding);
  }
  return [...findings.values()];
}

/** The node a `$ref` node points to (the node itself otherwise). */
function resolve(node: JsonObject): JsonObject {
  const target = typeof node.$ref === "string" && /^#\/\$defs\/([^/]+)$/.exec(node.$ref);
  return target ? (MODEL_SPEC_SCHEMA.$defs as Record<string, JsonObject>)[target[1]] : node;
}

/** An address in the path parser's words. */
const address = (parse: typeof parsePath): Wording => (value) => {
  const parsed = parse(value);
  return parsed.ok ? `'${value}' is not a canonical address` : parsed.message;
};

/** The wording for a value at `node` (or the node its `$ref` names) failing `keyword`, if it has one. */
function wordingOf(node: JsonObject, keyword: string): Wording | undefined {
  for (const candidate of new Set([node, resolve(node)])) {
    if (candidate.pattern === ADDRESS_PATTERN) return address(parsePath);
    if (candidate.pattern === CONCRETE_ADDRESS_PATTERN) return address(parseConcretePath);
    const pointer = pointerOf(candidate);
    const wording = pointer === undefined
      ? undefined
      : WORDINGS[`${pointer}/${keyword}`] ?? WORDINGS[pointer];
    if (wording) return wording;
  }
  return undefined;
}

/** The meta property an author means by a word of another vocabulary. */
const MEANT: Record<string, string> = {
  visible: "relevant",
  hidden: "relevant",
  disabled: "readOnly",
  editable: "readOnly",
  mandatory: "required",
};

/** `must be 'eager' or 'lazy'`, `must be one of required, minimum, …`. */
function oneOf(values: unknown[]): string {
  return values.length === 2
    ? `must be '${values[0]}' or '${values[1]}'`
    : `must be one of ${values.map(String).join(", ")}`;
}

/** `must be an object`, `must be a string or an array` (null is not named: it means absent). */
function ofType(type: unknown): string {
  const types = (Array.isArray(type) ? type : String(type).split(",")).map(String);
  const named = types.length > 1 ? types.filter((t) => t !== "null") : types;
  return `must be ${named.map((t) => (/^[aeiou]/.test(t) ? "an " : "a ") + t).join(" or ")}`;
}

/** The finding of one ajv error; null for the summaries of errors reported on their own. */
function describe(e: ErrorObject): Finding | null {
  const params = e.params as Record<string, unknown>;
  const parent = e.parentSchema as JsonObject;
  const at = pointerToLocation(e.instancePath, "spec");
  switch (e.keyword) {
    case "if":
    case "propertyNames":
      return null;
    case "additionalProperties": {
      const member = String(params.additionalProperty);
      return { location: e.instancePath === "" ? member : at, message: `unknown field '${member}'` };
    }
    case "required": {
      const member = String(params.missingProperty);
      const node = isObject(parent.properties) ? parent.properties[member] : undefined;
      const wording = isObject(node) ? wordingOf(node, "required") : undefined;
      const values = isObject(node) ? resolve(node).enum : undefined;
      return {
        location: pointerToLocation(`${e.instancePath}/${escape(member)}`, "spec"),
        message: wording?.(undefined, member) ??
          (Array.isArray(values) ? `${member} ${oneOf(values)}` : `${member} is required`),
      };
    }
  }
  // A property name failing `propertyNames` is located (and worded) as a key of its object.
  const location = e.propertyName === undefined ? at : `${at}['${e.propertyName}']`;
  const value = e.propertyName ?? e.data;
  const last = unescape(e.instancePath.slice(e.instancePath.lastIndexOf("/") + 1));
  const name = e.propertyName ?? (/^(0|[1-9]\d*)?$/.test(last) ? at : last);
  const wording = wordingOf(parent, e.keyword);
  if (wording) return { location, message: wording(value, name) };
  if (e.keyword === "type") return { location, message: `${name} ${ofType(params.type)}` };
  if (e.keyword === "enum") {
    const allowed = (params.allowedValues as unknown[]).map(String);
    // A value in other words or case (`Required`, `visible`, `disabled`): the allowed one an author means.
    const said = String(value).toLowerCase();
    const meant = allowed.find((a) => a.toLowerCase() === said || a === MEANT[said]);
    return { location, message: `${name} ${oneOf(allowed)}` + didYouMean(said, [], meant) };
  }
  return { location, message: `${name} ${e.message ?? "is invalid"}` };
}
