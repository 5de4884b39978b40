/**
 * URI references as ajv resolves schema ids and `$ref`s (RFC 3986): parse
 * into components, serialise back, resolve a reference against a base. Given
 * to every ajv instance of the engine (its `uriResolver` option) in place of
 * its default, fast-uri, which the browser bundles then leave out (15 KB
 * minified of the engine bundle). The engine's schemas reference within
 * themselves (`#/$defs/…`) and the meta-schemas by absolute `https` ids; no
 * normalisation beyond RFC 3986's (a lower-case scheme, dot segments removed
 * in resolution) is needed for them.
 *
 * @module
 */

/** The components of a URI reference (RFC 3986 section 3); absent ones are `undefined`. */
export interface UriComponents {
  scheme?: string;
  /** The authority (`user@host:port`), without its `//`. */
  host?: string;
  path: string;
  query?: string;
  fragment?: string;
}

/** RFC 3986 appendix B: splits any string into the five components. */
const REFERENCE = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#([\s\S]*))?$/;

/** The components of a URI reference. */
export function parse(reference: string): UriComponents {
  const [, scheme, host, path, query, fragment] = REFERENCE.exec(reference)!;
  return { scheme: scheme?.toLowerCase(), host, path, query, fragment };
}

/** A URI reference from its components (RFC 3986 section 5.3). */
export function serialize(components: UriComponents): string {
  const { scheme, host, path, query, fragment } = components;
  return (scheme === undefined ? "" : `${scheme}:`) + (host === undefined ? "" : `//${host}`) + (path ?? "") +
    (query === undefined ? "" : `?${query}`) + (fragment === undefined ? "" : `#${fragment}`);
}

/** `reference` resolved against `base` (RFC 3986 section 5.2.2, strict). */
export function resolve(base: string, reference: string): string {
  const r = parse(reference);
  const b = parse(base);
  let target: UriComponents;
  if (r.scheme !== undefined) {
    target = { ...r, path: removeDotSegments(r.path) };
  } else if (r.host !== undefined) {
    target = { ...r, scheme: b.scheme, path: removeDotSegments(r.path) };
  } else if (r.path === "") {
    target = { ...b, query: r.query ?? b.query, fragment: r.fragment };
  } else {
    const path = r.path.startsWith("/") ? r.path : merge(b, r.path);
    target = {
      scheme: b.scheme,
      host: b.host,
      path: removeDotSegments(path),
      query: r.query,
      fragment: r.fragment,
    };
  }
  return serialize({ ...target, fragment: r.fragment });
}

/** RFC 3986 section 5.2.3. */
function merge(base: UriComponents, path: string): string {
  if (base.host !== undefined && base.path === "") return `/${path}`;
  const slash = base.path.lastIndexOf("/");
  return slash < 0 ? path : base.path.slice(0, slash + 1) + path;
}

/** RFC 3986 section 5.2.4. */
function removeDotSegments(path: string): string {
  if (!path.includes(".")) return path;
  const output: string[] = [];
  let input = path;
  while (input.length) {
    if (input.startsWith("../")) input = input.slice(3);
    else if (input.startsWith("./")) input = input.slice(2);
    else if (input.startsWith("/./")) input = input.slice(2);
    else if (input === "/.") input = "/";
    else if (input.startsWith("/../")) {
      input = input.slice(3);
      output.pop();
    } else if (input === "/..") {
      input = "/";
      output.pop();
    } else if (input === "." || input === "..") input = "";
    else {
      const next = input.indexOf("/", input.startsWith("/") ? 1 : 0);
      const segment = next < 0 ? input : input.slice(0, next);
      output.push(segment);
      input = next < 0 ? "" : input.slice(next);
    }
  }
  return output.join("");
}

/** The resolver ajv takes (`uriResolver`). */
export const URI_RESOLVER = { parse, serialize, resolve };
