/**
 * The browser playground and the embed script, served from the web build
 * (`deno task build:web` writes `dist/web/`): `GET /` is the playground,
 * `/svc-embed.js` the embed script (any origin may load it: {@link EMBED_SCRIPT}), `/sw.js` its service worker,
 * `/examples/…` the embedding example. These paths are open (no API key:
 * the page holds no data, it asks for the key itself) and carry
 * {@link PAGE_CSP}, which allows exactly what the page does; every other
 * path keeps the server's strict CSP. The playground page comes marked as
 * served by this server ({@link SERVED_MARK}), so it starts connected to it;
 * the same build on a static host or opened from disk starts in the tab.
 * Without a build, `/` answers 503 with the command that makes one.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { fileURLToPath } from "node:url";

/**
 * What the pages need: their own scripts (`'unsafe-eval'`: the engine's JSON
 * Schema validator compiles each schema to a function), their own styles
 * and style attributes (the spec editor sets element styles;
 * a style cannot run code), images from the models' blobs
 * (`blob:`) and the favicon (`data:`), REST and WebSocket calls to this
 * server, and the service worker.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The embed script, which pages of any origin load (README "Embedding": `<script type="module"
 * src="https://your-host/svc-embed.js">`). A module script from another origin needs CORS, so it is
 * shared with every origin: it is public code, served open, holding no data, and asked for without
 * credentials.
 */
export const EMBED_SCRIPT = "/svc-embed.js";

/**
 * Where the server looks for the web build: `dist/web` of the project, from
 * this module's place in it, or `web/` beside a bundled `dist/svc.js` (this
 * module is then part of that file).
 */
export const DEFAULT_WEB_ROOT: string = fileURLToPath(
  new URL(import.meta.url.endsWith("/server/routes/web.ts") ? "../../dist/web/" : "./web/", import.meta.url),
);

/**
 * What the server adds to the playground page's `<html>` tag: the page reads it
 * (browser/playground/app.ts) to start connected to the server that served it.
 */
export const SERVED_MARK = 'data-server="here"';

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json",
};

/** The public paths of the web build's files (`/` for `index.html`); empty when there is no build. */
export function webPaths(root: string): string[] {
  const paths: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.name.startsWith(".")) continue;
      if (entry.isDirectory) walk(`${dir}/${entry.name}`, `${prefix}${entry.name}/`);
      else if (entry.name.split(".").pop()! in TYPES) paths.push(`${prefix}${entry.name}`);
    }
  };
  try {
    walk(root.replace(/\/+$/, ""), "/");
  } catch {
    return [];
  }
  return paths.includes("/index.html") ? ["/", ...paths] : paths;
}

const MISSING = `<!doctype html><meta charset="utf-8"><title>Playground not built</title>
<p>The playground is not built. Run <code>deno task build:web</code> (or start the server with
<code>deno task start</code>, which builds it first) and reload.</p>`;

/**
 * Serves the web build's files under `root` at their paths (GET and HEAD), and the answer for a missing
 * build at `/`; every other request passes on. `aliases` serve a page at another path too (`/pair`, the
 * playground's approve page: `{"/pair": "/"}`). A middleware rather than routes: these are pages, not
 * API operations, so the route table and the OpenAPI document stay about the API.
 */
export function webPages(
  root: string,
  paths: readonly string[],
  aliases: Record<string, string> = {},
): MiddlewareHandler {
  const files = new Map(
    paths.map((path) => [path, `${root.replace(/\/+$/, "")}${path === "/" ? "/index.html" : path}`]),
  );
  for (const [alias, path] of Object.entries(aliases)) {
    const file = files.get(path);
    if (file) files.set(alias, file);
  }
  const pages = new Set(["/", ...Object.keys(aliases)]);
  const playground = files.get("/");
  const missing = () => new Response(MISSING, { status: 503, headers: { "content-type": TYPES.html } });
  return function webPages(c, next) {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
    const file = files.get(c.req.path);
    if (!file) return pages.has(c.req.path) ? Promise.resolve(missing()) : next();
    return page(file, c.req.path === EMBED_SCRIPT);
  };
  async function page(file: string, shared: boolean): Promise<Response> {
    try {
      const bytes = await Deno.readFile(file);
      const body = file === playground
        ? new TextDecoder().decode(bytes).replace(/<html\b/i, `$& ${SERVED_MARK}`)
        : bytes;
      return new Response(body, {
        headers: {
          "content-type": TYPES[file.split(".").pop()!],
          "cache-control": "no-cache",
          ...shared ? { "access-control-allow-origin": "*" } : {},
        },
      });
    } catch {
      return missing();
    }
  }
}
