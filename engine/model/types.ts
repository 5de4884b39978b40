/**
 * ModelSpec: the declarative document a model is created from (SPEC.md "ModelSpec").
 *
 * @module
 */
import type { Json, JsonObject } from "../json/value.ts";

/** `eager` derivations run inside each mutation; `lazy` ones on read. */
export type Evaluation = "eager" | "lazy";

/** A computed, read-only field. */
export interface Derivation {
  path: string;
  expr: string;
  evaluation?: Evaluation;
  description?: string;
}

/** Properties a meta derivation may compute. */
export const META_PROPERTIES = [
  "required",
  "minimum",
  "maximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "enum",
  "readOnly",
  "relevant",
] as const;

/** One of {@link META_PROPERTIES}. */
export type MetaProperty = typeof META_PROPERTIES[number];

/** Live per-field metadata. */
export interface MetaDerivation {
  path: string;
  property: MetaProperty;
  expr: string;
  description?: string;
}

/** What happens when a constraint fails. */
export type ConstraintPolicy = "rollback" | "flag";

/** A boolean invariant checked after derivations settle. */
export interface Constraint {
  id: string;
  path?: string | string[] | null;
  expr: string;
  message: string;
  policy: ConstraintPolicy;
}

/** A default rule merged into newly created containers. */
export interface DefaultValueRule {
  path: string;
  expr: string;
  description?: string;
}

/** An effect emitted as data when its trigger fires (DECISIONS.md "Effects"). */
export interface Effect {
  id: string;
  trigger: string;
  executor?: string;
  dedupeKey?: string;
  statusPath?: string;
  emit?: string;
  payload?: Json;
  [member: string]: unknown;
}

/** An embedded test case. */
export interface TestCase {
  description?: string;
  given: Record<string, Json>;
  expect: Record<string, Json>;
}

/**
 * Where an inherited library layer comes from, pinned when a template is
 * flattened. (The library shapes are type aliases, not interfaces, so they are
 * JSON values to code that handles specs as JSON.)
 */
export type LayerPin = {
  ref: string;
  version: string;
  digest?: string;
  repo?: string;
  owner?: string | null;
};

/**
 * One layer of a library: JSONata ending with the array of the names it
 * exports; an inherited layer carries its pin.
 */
export type LibraryLayer = Partial<LayerPin> & {
  define: string;
  /** JSONata signatures (`<nn:n>`) of function exports, by name. */
  signatures?: Record<string, string>;
  /** The model constants the layer reads as `$const.<name>`. */
  requiresConstants?: string[];
};

/** The object form of `library`: inherited `layers`, then the local layer (`define` and its members). */
export type LibraryObject = {
  description?: string;
  define?: string;
  signatures?: Record<string, string>;
  requiresConstants?: string[];
  /** A library model to extend, `[namespace/]name[@version]` (shape-checked only). */
  extends?: string;
  layers?: LibraryLayer[];
};

/** The `library` member: a bare string is the local layer's `define`. */
export type Library = string | LibraryObject;

/** The model specification. */
export interface ModelSpec {
  id: string;
  version?: string;
  template?: { ref: string } | null;
  lineage?: Json[];
  schema: JsonObject;
  constants?: Record<string, Json>;
  library?: Library | null;
  defaultValues?: DefaultValueRule[];
  derivations?: Derivation[];
  metaDerivations?: MetaDerivation[];
  constraints?: Constraint[];
  effects?: Effect[];
  tests?: TestCase[];
  viewDefinition?: JsonObject | null;
  [extra: string]: unknown;
}

/** Default spec version. */
export const DEFAULT_VERSION = "1.0.0";

/** snake_case form of a meta property, as used in meta cache keys (`#read_only`). */
export function metaKeyName(property: string): string {
  return property.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());
}

/**
 * Where the `#` of `<address>#<property>` stands in `key`, or -1: a `#` inside a quoted name (`$['a#b']`)
 * comes before the name's closing bracket, so it is the name's.
 */
export function metaHashAt(key: string): number {
  const hash = key.lastIndexOf("#");
  return hash > key.lastIndexOf("]") ? hash : -1;
}

/** The meta properties as meta cache keys name them (`read_only`), after the address's `#`. */
export const META_KEYS: readonly string[] = META_PROPERTIES.map(metaKeyName);

/** camelCase form of a snake_case meta key name (`read_only` -> `readOnly`). */
export function metaPropertyName(keyName: string): string {
  return keyName.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}
