/**
 * Model coordinates (decisions/composition.md "Coordinates"):
 * `[ns/]name[@spec]`. A segment is `[A-Za-z][A-Za-z0-9_-]*`; the namespace
 * may be dotted; at most one `/` and one `@`. The spec pins a version: an
 * exact version, a range (`^` same major and at least the base, `~` same major
 * and minor and at least the base, `>=`, `>`, `<=`, `<`, `=`), or
 * `sha256:<64 hex>` (a digest); none matches any version. The owner of a
 * coordinate is its namespace.
 *
 * Versions, and the versions pins name, are SemVer 2.0.0 ({@link SEMVER_PATTERN},
 * shared with the ModelSpec schema's `version`): `MAJOR.MINOR.PATCH` with an
 * optional `-pre.release` and `+build` metadata. Precedence (semver.org §11)
 * compares MAJOR, MINOR and PATCH numerically, then ranks a pre-release below
 * its release and compares pre-release identifiers dot by dot (numeric ones
 * numerically and below alphanumeric ones, alphanumeric ones in ASCII order, a
 * longer set higher when all before are equal); build metadata is ignored, by
 * `=` as well (`@1.0.0` matches `1.0.0+build.5`). As in npm, a version with a
 * pre-release satisfies a range pin only when the pin's own version is a
 * pre-release of the same `MAJOR.MINOR.PATCH`: `@^1.0.0` never takes
 * `1.1.0-alpha`, `@>=2.0.0-rc.1` takes `2.0.0-rc.2` and `2.0.1` but not
 * `2.0.1-rc.1`, and `@2.0.0-rc.1` takes exactly that version.
 *
 * @module
 */
import { SEMVER_PATTERN } from "../model/model_spec_schema.ts";

const SEGMENT = "[A-Za-z][A-Za-z0-9_-]*";
const COORDINATE = new RegExp(`^(?:(${SEGMENT}(?:\\.${SEGMENT})*)/)?(${SEGMENT})(?:@(.+))?$`);
const SEMVER = new RegExp(`^${SEMVER_PATTERN}$`);
const RANGE = new RegExp(`^(\\^|~|>=|>|<=|<|=)?\\s*(${SEMVER_PATTERN})$`);
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const NUMERIC = /^\d+$/;

/** A version pin. */
export type VersionPin =
  | { kind: "any" }
  | { kind: "range"; operator: "^" | "~" | ">=" | ">" | "<=" | "<" | "="; version: string }
  | { kind: "digest"; digest: string };

/** A parsed coordinate. */
export interface Coordinate {
  /** `ns/name`, the model id it names. */
  identity: string;
  namespace: string | null;
  name: string;
  pin: VersionPin;
}

/** Parses a coordinate; null when it is not one. */
export function parseCoordinate(text: unknown): Coordinate | null {
  if (typeof text !== "string") return null;
  const match = COORDINATE.exec(text.trim());
  if (!match) return null;
  const [, namespace, name, spec] = match;
  const pin = pinOf(spec);
  if (!pin) return null;
  return { identity: namespace ? `${namespace}/${name}` : name, namespace: namespace ?? null, name, pin };
}

function pinOf(spec: string | undefined): VersionPin | null {
  if (spec === undefined) return { kind: "any" };
  if (DIGEST.test(spec)) return { kind: "digest", digest: spec };
  const range = RANGE.exec(spec);
  if (!range) return null;
  return {
    kind: "range",
    operator: (range[1] ?? "=") as Extract<VersionPin, { kind: "range" }>["operator"],
    version: range[2],
  };
}

/** The owner of a model id or coordinate: its namespace, or null. */
export function ownerOf(idOrRef: string): string | null {
  return parseCoordinate(idOrRef)?.namespace ?? null;
}

/** A version's parts that take part in precedence: the build metadata is dropped. */
interface Parsed {
  /** MAJOR, MINOR, PATCH as digit strings (no leading zeros, so any size compares exactly). */
  core: [string, string, string];
  /** The pre-release identifiers; empty for a release. */
  pre: string[];
}

function parse(version: string): Parsed | null {
  if (!SEMVER.test(version)) return null;
  const plus = version.indexOf("+");
  const precedent = plus < 0 ? version : version.slice(0, plus);
  const dash = precedent.indexOf("-");
  const [major, minor, patch] = (dash < 0 ? precedent : precedent.slice(0, dash)).split(".");
  return { core: [major, minor, patch], pre: dash < 0 ? [] : precedent.slice(dash + 1).split(".") };
}

/** Orders two digit strings without leading zeros numerically. */
function compareNumbers(a: string, b: string): number {
  return a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;
}

/** Orders two pre-release identifiers (semver.org §11.4.1–3). */
function compareIdentifiers(a: string, b: string): number {
  const na = NUMERIC.test(a);
  const nb = NUMERIC.test(b);
  if (na && nb) return compareNumbers(a, b);
  if (na !== nb) return na ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareCores(a: Parsed, b: Parsed): number {
  for (let i = 0; i < 3; i++) {
    const order = compareNumbers(a.core[i], b.core[i]);
    if (order !== 0) return order;
  }
  return 0;
}

function compareParsed(a: Parsed, b: Parsed): number {
  const core = compareCores(a, b);
  if (core !== 0) return core;
  // A pre-release ranks below its release (§11.3).
  if (!a.pre.length || !b.pre.length) return b.pre.length - a.pre.length;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const order = compareIdentifiers(a.pre[i], b.pre[i]);
    if (order !== 0) return order;
  }
  // A larger set of identifiers ranks higher when all before are equal (§11.4.4).
  return a.pre.length - b.pre.length;
}

/**
 * Orders two versions by SemVer 2.0.0 precedence (negative, zero or positive);
 * build metadata is ignored, so `1.0.0` and `1.0.0+build.5` compare equal. A
 * non-semver sorts first.
 */
export function compareVersions(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  if (!pa || !pb) return (pa ? 1 : 0) - (pb ? 1 : 0);
  return compareParsed(pa, pb);
}

/** Whether `version` (with its spec `digest`) satisfies a pin. */
export function satisfies(pin: VersionPin, version: string, digest: string): boolean {
  switch (pin.kind) {
    case "any":
      return true;
    case "digest":
      return pin.digest === digest;
    case "range": {
      const v = parse(version);
      const base = parse(pin.version)!;
      if (!v) return false;
      // A pre-release is taken only by a pin that names a pre-release of the same MAJOR.MINOR.PATCH.
      if (v.pre.length && !(base.pre.length && compareCores(v, base) === 0)) return false;
      const order = compareParsed(v, base);
      switch (pin.operator) {
        case "=":
          return order === 0;
        case ">=":
          return order >= 0;
        case ">":
          return order > 0;
        case "<=":
          return order <= 0;
        case "<":
          return order < 0;
        case "^":
          return v.core[0] === base.core[0] && order >= 0;
        case "~":
          return v.core[0] === base.core[0] && v.core[1] === base.core[1] && order >= 0;
      }
    }
  }
}
