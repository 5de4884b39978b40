/**
 * Where effects keep their status documents. A `statusPath` names a field of
 * its own: not the document root; not at, inside or above a derivation target
 * (the derivation and the status writes would overwrite each other); not at,
 * inside or above another effect's status document; and where the schema
 * accepts every status document the effect writes (SPEC.md "Effect status
 * phases"), containers on the way included — so no phase write is ever
 * refused and an effect never stays `pending` for want of one.
 *
 * A field the schema leaves open is the effect's: a value written there
 * before it fires is replaced by its status document.
 *
 * @module
 */
import type { SchemaViolation } from "../../errors.ts";
import { formatPath, isPrefixOf, type Segment } from "../../json/path.ts";
import type { Json } from "../../json/value.ts";
import type { SchemaIndex } from "../schema_index.ts";
import { EFFECT_PHASES, statusDocument } from "../status_document.ts";
import type { SectionContext } from "./context.ts";

/** An effect's status document, as the effects section found it. */
export interface StatusPlace {
  /** The effect's id. */
  id: string;
  /** `effects[i].statusPath`. */
  location: string;
  path: Segment[];
  /** Whether the effect has a `dedupeKey`, whose value (of any type) the documents carry as `key`. */
  keyed: boolean;
}

/** What the rest of the spec claims of the document. */
export interface StatusPathContext {
  /** The base-document schema, when it compiled. */
  schema: SchemaIndex | undefined;
  /** The derivations' targets. */
  derivedTargets: readonly Segment[][];
}

/** The values a `key` takes: null (no `dedupeKey`, cancelled, blocked), else a `dedupeKey`'s value. */
const KEYS: readonly Json[] = [null, "key", 1, true, { key: 1 }, ["key"]];

/** Reports every status path that cannot hold its effect's status documents. */
export function checkStatusPaths(
  places: readonly StatusPlace[],
  { schema, derivedTargets }: StatusPathContext,
  ctx: SectionContext,
): void {
  const claimed: StatusPlace[] = [];
  for (const place of places) {
    const problem = placeProblem(place, derivedTargets, claimed) ?? (schema && schemaProblem(place, schema));
    if (problem) ctx.error(place.location, problem);
    else claimed.push(place);
  }
}

/** Why a status document cannot go where `place` says, for what else claims that place. */
function placeProblem(
  place: StatusPlace,
  derivedTargets: readonly Segment[][],
  claimed: readonly StatusPlace[],
): string | null {
  const { path } = place;
  const address = formatPath(path);
  if (path.length === 0) {
    return "a statusPath names a field: the status document cannot be the whole document";
  }
  for (const target of derivedTargets) {
    const where = relation(path, target);
    if (where) {
      return `statusPath ${address} is ${where} the derivation target ${formatPath(target)}: ` +
        "the derivation and the effect's status writes would overwrite each other";
    }
  }
  for (const other of claimed) {
    const where = relation(path, other.path);
    if (where) {
      return `statusPath ${address} is ${where} the statusPath of effect '${other.id}' ` +
        `(${formatPath(other.path)}): each effect keeps its own status document`;
    }
  }
  return null;
}

/** How `path` and `other` overlap: `at`, `inside` or `above`; null when they do not. */
function relation(path: readonly Segment[], other: readonly Segment[]): string | null {
  if (isPrefixOf(other, path)) return other.length === path.length ? "at" : "inside";
  return isPrefixOf(path, other) ? "above" : null;
}

/**
 * Why the schema refuses a status document at `place`: a container on the
 * way that must not be an object (or array), or the first violation of one
 * of the documents the effect writes (every phase; every kind of `key` a
 * `dedupeKey` may give).
 */
function schemaProblem(place: StatusPlace, schema: SchemaIndex): string | null {
  const { path } = place;
  const address = formatPath(path);
  const refuse = (v: SchemaViolation) =>
    `the schema does not accept the effect's status document {phase, key, at, error} at ${address}: ` +
    `${v.path === address ? "" : `${v.path} `}${v.message} (${v.keyword})`;
  for (let depth = 0; depth < path.length; depth++) {
    const violation = schema.containerViolation(path.slice(0, depth), path[depth], address);
    if (violation) return refuse(violation);
  }
  for (const document of statusDocuments(place.keyed)) {
    const [violation] = schema.validateAt(path, document);
    if (violation) return refuse(violation);
  }
  return null;
}

/** The status documents an effect may write: each phase with a null key, and with each kind of key. */
function statusDocuments(keyed: boolean): Json[] {
  const errorOf = (phase: string) => phase === "failed" || phase === "blocked" ? "reason" : null;
  const documents = EFFECT_PHASES.map((phase) => statusDocument(phase, null, 0, errorOf(phase)));
  if (keyed) {
    for (const key of KEYS.slice(1)) {
      documents.push(statusDocument("pending", key, 0), statusDocument("failed", key, 0, "reason"));
    }
  }
  return documents;
}
