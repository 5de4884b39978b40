/**
 * Canonical JSON Path addresses (RFC 9535 subset): `$`-rooted, dot member names,
 * bracket indices, `[*]` wildcards and quoted members (`$['odd key']`).
 *
 * Addresses are parsed once into segment arrays; the rest of the engine works on
 * segments. The legacy dot-index form (`$.items.0.name`) and unrooted forms are
 * rejected with the canonical rewrite in the message.
 *
 * @module
 */

/** The wildcard segment `[*]`. */
export const WILDCARD = -1;

/** A path segment: a member name, an array index, or {@link WILDCARD}. */
export type Segment = string | number;

/** A parsed address. */
export type Path = readonly Segment[];

/**
 * A member name written after a dot: `/^[A-Za-z_][A-Za-z0-9_-]*$/`, tested
 * without a regular expression (every write formats its paths).
 */
function isSimpleName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (!letter && (i === 0 || !((c >= 48 && c <= 57) || c === 45))) return false;
  }
  return true;
}

const DOT_NAME = /^[A-Za-z_$\u0080-\uffff][A-Za-z0-9_$\-\u0080-\uffff]*/;

/** Result of parsing an address. */
export type ParsedPath =
  | { ok: true; path: Segment[] }
  | { ok: false; message: string; canonical?: string };

/** Formats segments as a canonical address. */
export function formatPath(path: Path): string {
  let out = "$";
  for (const seg of path) {
    if (typeof seg === "number") out += seg === WILDCARD ? "[*]" : `[${seg}]`;
    else if (isSimpleName(seg)) out += "." + seg;
    else out += "['" + seg.replace(/\\/g, "\\\\").replace(/'/g, "\\'") + "']";
  }
  return out;
}

/** Parses an address written leniently (legacy or unrooted forms allowed) into segments. */
function parseLenient(text: string): { path: Segment[]; legacy: boolean } | string {
  let rest = text.trim();
  if (rest.startsWith("$")) rest = rest.slice(1);
  else if (rest.length && !rest.startsWith(".") && !rest.startsWith("[")) rest = "." + rest;
  const path: Segment[] = [];
  let legacy = false;
  while (rest.length) {
    if (rest.startsWith(".")) {
      rest = rest.slice(1);
      const digits = /^\d+/.exec(rest);
      if (digits && (rest.length === digits[0].length || /^[.[]/.test(rest.slice(digits[0].length)))) {
        path.push(Number(digits[0]));
        legacy = true;
        rest = rest.slice(digits[0].length);
        continue;
      }
      if (rest.startsWith("*")) {
        path.push(WILDCARD);
        legacy = true;
        rest = rest.slice(1);
        continue;
      }
      const name = DOT_NAME.exec(rest);
      if (!name) return `expected a member name at '${rest.slice(0, 20)}'`;
      path.push(name[0]);
      rest = rest.slice(name[0].length);
    } else if (rest.startsWith("[")) {
      // RFC 9535's index has no leading zero: `[01]` is malformed, not `[1]` written otherwise.
      const index = /^\[\s*(0|[1-9]\d*|\*)\s*\]/.exec(rest);
      if (index) {
        path.push(index[1] === "*" ? WILDCARD : Number(index[1]));
        rest = rest.slice(index[0].length);
        continue;
      }
      const quoted = /^\[\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*\]/.exec(rest);
      if (!quoted) return `'${rest.slice(0, 20)}' is not an index [0], [*] or a quoted name ['x']`;
      path.push((quoted[1] ?? quoted[2]).replace(/\\(.)/g, "$1"));
      rest = rest.slice(quoted[0].length);
    } else {
      return `unexpected '${rest[0]}' at '${rest.slice(0, 20)}'`;
    }
  }
  return { path, legacy };
}

/**
 * Parses a canonical address. Legacy dot-index (`$.items.0.name`) and unrooted
 * (`items[0].name`) forms fail with the canonical rewrite in the message; an
 * unrooted one's is under `base` (a section list's element, `$.lines[*]`).
 */
export function parsePath(text: unknown, base: Path = []): ParsedPath {
  if (typeof text !== "string" || text.trim() === "") {
    return { ok: false, message: "an address must be a non-empty string such as '$.field'" };
  }
  const parsed = parseLenient(text);
  if (typeof parsed === "string") {
    return { ok: false, message: `'${text}' is not a valid address: ${parsed}` };
  }
  const rooted = text.trim().startsWith("$");
  if (!rooted || parsed.legacy) {
    const canonical = formatPath(rooted ? parsed.path : [...base, ...parsed.path]);
    const form = !rooted ? "unrooted" : "legacy dot-index";
    return {
      ok: false,
      canonical,
      message: `'${text}' uses the ${form} form; write it as '${canonical}'`,
    };
  }
  return { ok: true, path: parsed.path };
}

/** Parses a canonical address naming one location: as {@link parsePath}, refusing `[*]`. */
export function parseConcretePath(text: unknown): ParsedPath {
  const parsed = parsePath(text);
  if (parsed.ok && hasWildcard(parsed.path)) {
    return { ok: false, message: `'${text}' must be a concrete address without [*]` };
  }
  return parsed;
}

/** The segments of a canonical address, or `null` when it does not parse ({@link parsePath}). */
export function pathOrNull(text: unknown): Segment[] | null {
  const parsed = parsePath(text);
  return parsed.ok ? parsed.path : null;
}

/**
 * Parses an address accepting unrooted and legacy forms too (used for URL path
 * parameters such as `order.total`). Returns an error message string on failure.
 */
export function canonicalizePath(text: string): Segment[] | string {
  const parsed = parseLenient(text);
  return typeof parsed === "string" ? `'${text}' is not a valid address: ${parsed}` : parsed.path;
}

/** True when the path contains a wildcard. */
export function hasWildcard(path: Path): boolean {
  return path.includes(WILDCARD);
}

/** True when two segments can denote the same location (a wildcard matches any index). */
function segmentsMatch(a: Segment, b: Segment): boolean {
  if (a === b) return true;
  return (a === WILDCARD && typeof b === "number") || (b === WILDCARD && typeof a === "number");
}

/**
 * True when the two paths can touch the same data: one is a prefix of the other
 * (an ancestor or descendant) with wildcards matching any index. An index on one
 * side facing a member name on the other is skipped, so a read recorded without
 * knowing that a field holds an array (`$.things.price`) still meets the write
 * `$.things[2].price`: the check errs towards recomputing, never towards missing.
 * With `anyChild`, a wildcard in `a` (a query: the change feed's `paths`, the
 * audit's `path`) selects any member or index, as RFC 9535's `*` does: `$.*`
 * is every top-level member, `$.totals.*` every member of an object.
 */
export function pathsOverlap(a: Path, b: Path, anyChild = false): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (segmentsMatch(a[i], b[j]) || anyChild && a[i] === WILDCARD) {
      i++;
      j++;
    } else if (typeof a[i] === "number" && typeof b[j] === "string") {
      i++;
    } else if (typeof b[j] === "number" && typeof a[i] === "string") {
      j++;
    } else {
      return false;
    }
  }
  return true;
}

/** True when `pattern` (which may hold wildcards) matches the concrete `path` exactly. */
export function patternMatches(pattern: Path, path: Path): boolean {
  if (pattern.length !== path.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    if (!segmentsMatch(pattern[i], path[i])) return false;
  }
  return true;
}

/** True when `prefix` is a (pattern) prefix of `path`. */
export function isPrefixOf(prefix: Path, path: Path): boolean {
  if (prefix.length > path.length) return false;
  for (let i = 0; i < prefix.length; i++) if (!segmentsMatch(prefix[i], path[i])) return false;
  return true;
}

/** Replaces every concrete index by a wildcard (`$.items[3].qty` -> `$.items[*].qty`). */
export function toPattern(path: Path): Segment[] {
  return path.map((s) => typeof s === "number" ? WILDCARD : s);
}

/** Converts an RFC 6901 JSON Pointer into segments, resolving numeric tokens against `doc`. */
export function pointerToPath(pointer: string, doc: unknown): Segment[] | string {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return `'${pointer}' is not a JSON Pointer (it must start with '/')`;
  const out: Segment[] = [];
  let cur: unknown = doc;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(cur)) {
      if (token === "-") {
        out.push(cur.length);
        cur = undefined;
        continue;
      }
      if (!/^(0|[1-9]\d*)$/.test(token)) return `'${token}' is not an array index in '${pointer}'`;
      const index = Number(token);
      out.push(index);
      cur = cur[index];
    } else {
      out.push(token);
      cur = cur !== null && typeof cur === "object" ? (cur as Record<string, unknown>)[token] : undefined;
    }
  }
  return out;
}

/** Converts concrete segments to an RFC 6901 JSON Pointer. */
export function pathToPointer(path: Path): string {
  return path.map((s) => "/" + String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

/**
 * The finding location of an RFC 6901 JSON Pointer into a document
 * (`/upsertDerivations/0/path` -> `upsertDerivations[0].path`): indices in
 * brackets, identifier members after a dot, other members quoted
 * (`given['$.a']`); the empty pointer is `root`.
 */
export function pointerToLocation(pointer: string, root: string): string {
  if (pointer === "") return root;
  let out = "";
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^(0|[1-9]\d*)$/.test(token)) out += `[${token}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(token)) out += out ? `.${token}` : token;
    else out += `['${token}']`;
  }
  return out;
}
