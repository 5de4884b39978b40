/**
 * Model coordinates (decisions/composition.md "Coordinates"):
 * `[ns/]name[@spec]`. A segment is `[A-Za-z][A-Za-z0-9_-]*`; the namespace
 * may be dotted; at most one `/` and one `@`. The spec pins a version: an
 * exact semver, a range (`^` same major and at least the base, `~` same major
 * and minor, `>=`, `>`, `<=`, `<`, `=`), or `sha256:<64 hex>` (a digest);
 * none matches any version. The owner of a coordinate is its namespace.
 *
 * @module
 */

const SEGMENT = "[A-Za-z][A-Za-z0-9_-]*";
const COORDINATE = new RegExp(`^(?:(${SEGMENT}(?:\\.${SEGMENT})*)/)?(${SEGMENT})(?:@(.+))?$`);
const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;
const RANGE = /^(\^|~|>=|>|<=|<|=)?\s*(\d+\.\d+\.\d+)$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

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

function parts(version: string): [number, number, number] | null {
  const m = SEMVER.exec(version);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** Orders two semvers (a non-semver sorts first). */
export function compareVersions(a: string, b: string): number {
  const pa = parts(a) ?? [-1, -1, -1];
  const pb = parts(b) ?? [-1, -1, -1];
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

/** Whether `version` (with its spec `digest`) satisfies a pin. */
export function satisfies(pin: VersionPin, version: string, digest: string): boolean {
  switch (pin.kind) {
    case "any":
      return true;
    case "digest":
      return pin.digest === digest;
    case "range": {
      const v = parts(version);
      const base = parts(pin.version)!;
      if (!v) return false;
      const order = compareVersions(version, pin.version);
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
          return v[0] === base[0] && order >= 0;
        case "~":
          return v[0] === base[0] && v[1] === base[1] && order >= 0;
      }
    }
  }
}
