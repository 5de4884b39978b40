/**
 * The SpecEvolution JSON Schema (draft 2020-12): the body of a spec evolve
 * (SPEC.md "SpecEvolution"). It is the single description of the members:
 * {@link parseEvolution} validates evolutions against it, and MCP's
 * `evolve_spec` embeds it as its `inputSchema`.
 *
 * It checks shapes only (member names, JSON types, the key members each list
 * entry is matched by); whether the evolved spec is valid is decided by
 * compiling it like a new one.
 *
 * @module
 */
import type { JsonObject } from "../json/value.ts";
import { META_PROPERTIES } from "../model/types.ts";

const nonEmpty: JsonObject = { type: "string", minLength: 1 };
const address = (description: string): JsonObject => ({ ...nonEmpty, description });
const names = (description: string): JsonObject => ({
  type: "array",
  items: nonEmpty,
  description,
});
const addresses = (description: string): JsonObject => ({
  type: "array",
  items: address("canonical address"),
  description,
});
const jsonSchema: JsonObject = {
  type: ["object", "boolean"],
  description: "a JSON Schema 2020-12 node",
};

/** The SpecEvolution JSON Schema. */
export const SPEC_EVOLUTION_SCHEMA: JsonObject = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "svc://schema/spec-evolution",
  title: "SpecEvolution",
  description:
    "An incremental change to a live model's spec. All members are optional; `{newVersion}` alone " +
    "changes only the version. Within one section (schema, view, constants) the wholesale member " +
    "(newSchema, newViewDefinition, newConstants) excludes that section's targeted members; " +
    "different sections combine. The evolved spec is validated like a new one, and the model's state is " +
    "carried forward: derived values are recomputed, and values the new schema no longer admits refuse the " +
    "evolution, listing their paths.",
  type: "object",
  additionalProperties: false,
  properties: {
    newVersion: {
      type: "string",
      description: "replaces the version string (semantic version MAJOR.MINOR.PATCH; not blank)",
    },
    expectedVersion: {
      type: "string",
      description: "the evolution applies only when the live version equals it; otherwise a version conflict",
    },
    newSchema: {
      type: "object",
      description: "replaces the whole base-document schema (JSON Schema 2020-12)",
    },
    upsertSchemaDefs: {
      type: "object",
      additionalProperties: jsonSchema,
      description: "map of `$defs` name to schema; each named definition is replaced wholesale or added",
    },
    removeSchemaDefs: names("`$defs` names to remove; refused while a `$ref` still references one"),
    upsertSchemaNodes: {
      type: "array",
      description: "schema nodes replaced or added at canonical data paths",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["path", "schema"],
        properties: {
          path: address(
            "canonical data path such as `$.customer.email` or `$.items[*].qty`; missing intermediate " +
              "object and array nodes are created; the path may not pass through a `$ref`",
          ),
          schema: jsonSchema,
          required: {
            type: ["boolean", "null"],
            description: "true adds the field to its parent's `required` list, false removes it, absent or " +
              "null leaves the list unchanged",
          },
        },
      },
    },
    removeSchemaNodes: addresses(
      "canonical data paths whose schema nodes are removed (and their parent's " +
        "`required` entries)",
    ),
    newViewDefinition: {
      type: ["object", "null"],
      description: "replaces the whole view definition; null removes it",
    },
    newDefaultView: { ...nonEmpty, description: "id of the view shown by default" },
    upsertViews: {
      type: "array",
      description: "views replaced (matched by `id`) or appended",
      items: { $ref: "#/$defs/identified" },
    },
    removeViews: names("ids of views to remove"),
    upsertComponents: {
      type: "array",
      description:
        "components replaced in place (matched by `id` within the view when neither parentId nor " +
        "beforeId is given), or placed/moved: into the component `parentId` (absent: the view root), before " +
        "its child `beforeId` (absent: appended)",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["viewId", "component"],
        properties: {
          viewId: nonEmpty,
          component: {
            type: "object",
            required: ["id", "type"],
            properties: { id: nonEmpty, type: nonEmpty },
          },
          parentId: nonEmpty,
          beforeId: nonEmpty,
        },
      },
    },
    removeComponents: {
      type: "array",
      description: "components removed with their whole subtree",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["viewId", "componentId"],
        properties: {
          viewId: nonEmpty,
          componentId: nonEmpty,
        },
      },
    },
    upsertDerivations: {
      type: "array",
      description: "derivations replaced (matched by `path`) or appended",
      items: {
        type: "object",
        required: ["path", "expr"],
        properties: {
          path: address("target address, `$.`-rooted"),
          expr: { type: "string", description: "JSONata against the merged document" },
          evaluation: { enum: ["eager", "lazy"] },
          description: { type: "string" },
        },
      },
    },
    removeDerivations: addresses("target paths of derivations to remove"),
    upsertConstraints: {
      type: "array",
      description: "constraints replaced (matched by `id`) or appended",
      items: {
        type: "object",
        required: ["id", "expr", "message", "policy"],
        properties: {
          id: nonEmpty,
          path: {
            type: ["string", "array", "null"],
            items: { type: "string" },
            description: "null/absent: global; a string or array of strings: targets",
          },
          expr: { type: "string", description: "JSONata boolean against the merged document" },
          message: { type: "string" },
          policy: { enum: ["rollback", "flag"] },
        },
      },
    },
    removeConstraints: names("ids of constraints to remove"),
    upsertEffects: {
      type: "array",
      description: "effects replaced (matched by `id`) or appended",
      items: {
        type: "object",
        required: ["id", "trigger"],
        properties: {
          id: nonEmpty,
          trigger: { type: "string", description: "JSONata; the effect fires when it is truthy" },
          executor: { type: "string", description: "caller, server, llm, timer or a plugin kind" },
        },
      },
    },
    removeEffects: names("ids of effects to remove"),
    upsertMetaDerivations: {
      type: "array",
      description: "meta derivations replaced (matched by `path#property`) or appended",
      items: {
        type: "object",
        required: ["path", "property", "expr"],
        properties: {
          path: address("target address"),
          property: { enum: [...META_PROPERTIES] },
          expr: { type: "string" },
          description: { type: "string" },
        },
      },
    },
    removeMetaDerivations: names(
      "keys `path#property` of meta derivations to remove (`$.email#relevant`; `#readOnly` and `#read_only` " +
        "both name the readOnly property)",
    ),
    upsertDefaultValues: {
      type: "array",
      description: "default rules replaced (matched by `path`) or appended",
      items: {
        type: "object",
        required: ["path", "expr"],
        properties: { path: address("container address"), expr: { type: "string" } },
      },
    },
    removeDefaultValues: addresses("paths of default rules to remove"),
    newConstants: {
      type: "object",
      description: "replaces the whole constants map",
    },
    upsertConstants: { type: "object", description: "constants added or replaced by name" },
    removeConstants: names(
      "names of constants to remove; refused while an expression mentions `$const.<name>` (textual scan)",
    ),
    newTests: {
      type: "array",
      description: "replaces the whole list of embedded tests; [] clears it",
      items: {
        type: "object",
        required: ["given", "expect"],
        properties: {
          description: { type: "string" },
          given: { type: "object" },
          expect: { type: "object" },
        },
      },
    },
    newLibrary: {
      type: ["string", "object", "null"],
      additionalProperties: false,
      description: "replaces the library's local layer (a string is its `define`); null drops it. Layers " +
        "inherited from a template stay. Refused while an expression still uses an export that goes " +
        "(`$name`, textual scan), naming where",
      properties: {
        define: { type: "string", description: "JSONata ending with the array of the names it exports" },
        signatures: {
          type: "object",
          additionalProperties: { type: "string" },
          description: "JSONata signatures of function exports by name",
        },
        requiresConstants: { type: "array", items: { type: "string" } },
        description: { type: "string" },
        extends: { type: "string" },
      },
    },
    backfill: {
      type: "object",
      description:
        "map of base-field address (`[*]` expands over existing elements) to value, written only " +
        "where the state has no value (absent or null), before derivations are recomputed; each value must " +
        "satisfy the new schema",
    },
  },
  $defs: {
    identified: {
      type: "object",
      required: ["id"],
      properties: { id: nonEmpty },
    },
  },
};
