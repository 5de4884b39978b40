/**
 * The SpecEvolution shape and its argument check: every member is validated
 * against {@link SPEC_EVOLUTION_SCHEMA} (unknown members are errors), and a
 * wholesale member may not be combined with the targeted members of its own
 * section. Malformed evolutions are a 400 listing every problem; refusals of a
 * well-formed evolution (see `apply.ts`, `state.ts`) are 422.
 *
 * @module
 */
import { URI_RESOLVER } from "../json/uri.ts";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import type { Finding } from "../errors.ts";
import { pointerToLocation } from "../json/path.ts";
import { isObject, type Json, type JsonObject } from "../json/value.ts";
import type {
  Constraint,
  DefaultValueRule,
  Derivation,
  Effect,
  Library,
  MetaDerivation,
  TestCase,
} from "../model/types.ts";
import { invalidEvolution } from "./refusals.ts";
import { SPEC_EVOLUTION_SCHEMA } from "./schema.ts";

/** A schema node replaced or added at a data path (`upsertSchemaNodes`). */
export interface SchemaNodeEdit {
  path: string;
  schema: JsonObject | boolean;
  /** true adds the field to the parent's `required`, false removes it, absent leaves it. */
  required?: boolean | null;
}

/** A component replaced in place, or placed/moved (`upsertComponents`). */
export interface ComponentPlacement {
  viewId: string;
  component: JsonObject;
  parentId?: string;
  beforeId?: string;
}

/** A component removed with its subtree (`removeComponents`). */
export interface ComponentRef {
  viewId: string;
  componentId: string;
}

/** The body of a spec evolve (SPEC.md "SpecEvolution"). */
export interface SpecEvolution {
  newVersion?: string;
  expectedVersion?: string;
  newSchema?: JsonObject;
  upsertSchemaDefs?: Record<string, JsonObject | boolean>;
  removeSchemaDefs?: string[];
  upsertSchemaNodes?: SchemaNodeEdit[];
  removeSchemaNodes?: string[];
  newViewDefinition?: JsonObject | null;
  newDefaultView?: string;
  upsertViews?: JsonObject[];
  removeViews?: string[];
  upsertComponents?: ComponentPlacement[];
  removeComponents?: ComponentRef[];
  upsertDerivations?: Derivation[];
  removeDerivations?: string[];
  upsertConstraints?: Constraint[];
  removeConstraints?: string[];
  upsertEffects?: Effect[];
  removeEffects?: string[];
  upsertMetaDerivations?: MetaDerivation[];
  removeMetaDerivations?: string[];
  upsertDefaultValues?: DefaultValueRule[];
  removeDefaultValues?: string[];
  newConstants?: Record<string, Json>;
  upsertConstants?: Record<string, Json>;
  removeConstants?: string[];
  newTests?: TestCase[];
  /** Replaces the library's local layer; null drops it (inherited layers stay). */
  newLibrary?: Library | null;
  backfill?: Record<string, Json>;
}

/** The sections whose wholesale member excludes their targeted members. */
export const EXCLUSIVE_SECTIONS: readonly {
  section: string;
  wholesale: keyof SpecEvolution;
  targeted: (keyof SpecEvolution)[];
}[] = [
  {
    section: "schema",
    wholesale: "newSchema",
    targeted: ["upsertSchemaDefs", "removeSchemaDefs", "upsertSchemaNodes", "removeSchemaNodes"],
  },
  {
    section: "view",
    wholesale: "newViewDefinition",
    targeted: ["newDefaultView", "upsertViews", "removeViews", "upsertComponents", "removeComponents"],
  },
  { section: "constants", wholesale: "newConstants", targeted: ["upsertConstants", "removeConstants"] },
];

let validator: ValidateFunction | undefined;

function validateShape(input: unknown): ErrorObject[] {
  validator ??= new Ajv2020({ strict: false, allErrors: true, logger: false, uriResolver: URI_RESOLVER })
    .compile(SPEC_EVOLUTION_SCHEMA);
  return validator(input) ? [] : validator.errors ?? [];
}

const KNOWN_MEMBERS = Object.keys(SPEC_EVOLUTION_SCHEMA.properties as JsonObject);

function describe(e: ErrorObject): Finding {
  const location = pointerToLocation(e.instancePath, "evolution");
  const params = e.params as Record<string, unknown>;
  if (e.keyword === "additionalProperties") {
    const member = String(params.additionalProperty);
    return e.instancePath === ""
      ? {
        location: member,
        message: `unknown member '${member}'; a SpecEvolution has ${KNOWN_MEMBERS.join(", ")}`,
      }
      : { location, message: `unknown member '${member}'` };
  }
  if (e.keyword === "required") {
    return { location, message: `missing required member '${params.missingProperty}'` };
  }
  if (e.keyword === "enum") {
    return { location, message: `must be one of ${JSON.stringify(params.allowedValues)}` };
  }
  return { location, message: e.message ?? "is invalid" };
}

/** The evolved spec's errors, one of its `version` at `newVersion` when that set it: the member the caller sent. */
export function asSent(errors: Finding[], evolution: SpecEvolution): Finding[] {
  return errors.map((f) =>
    f.location === "version" && evolution.newVersion !== undefined ? { ...f, location: "newVersion" } : f
  );
}

/**
 * Checks an evolution's shape and returns it typed; throws a 400 naming every
 * malformed, unknown or conflicting member.
 */
export function parseEvolution(input: unknown): SpecEvolution {
  const findings = validateShape(input).map(describe);
  if (isObject(input)) {
    const evolution = input as SpecEvolution;
    // A blank version stands for the default only at creation: here it would quietly reset the version.
    if (typeof evolution.newVersion === "string" && evolution.newVersion.trim() === "") {
      findings.push({
        location: "newVersion",
        message:
          "must be a semantic version (MAJOR.MINOR.PATCH), not blank: leave newVersion out to keep the version",
      });
    }
    for (const { section, wholesale, targeted } of EXCLUSIVE_SECTIONS) {
      const mixed = targeted.filter((member) => evolution[member] !== undefined);
      if (evolution[wholesale] !== undefined && mixed.length) {
        findings.push({
          location: wholesale,
          message: `replaces the whole ${section} section and cannot be combined with ${mixed.join(", ")}`,
        });
      }
    }
  }
  if (findings.length) throw invalidEvolution(findings);
  return input as SpecEvolution;
}
