/**
 * A static file server for browser tests on a free loopback port: fixed files
 * from memory, or a directory on disk (a built `dist/web/`). Nothing is cached,
 * so a reload always asks again.
 *
 * @module
 */
import { extname, join, normalize } from "node:path";

/** A file served from memory. */
export interface ServedFile {
  body: string | Uint8Array<ArrayBuffer>;
  type: string;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".webmanifest": "application/manifest+json",
};

/** Content type by file extension. */
export function contentType(path: string): string {
  return TYPES[extname(path)] ?? "application/octet-stream";
}

/** Serves `files` by path (`/` for the page) and, for other paths, files under `dir` when given. */
export function serveStatic(
  files: Record<string, ServedFile>,
  dir?: string,
): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const path = new URL(request.url).pathname;
    const headers = { "cache-control": "no-store" };
    const file = files[path];
    if (file) return new Response(file.body, { headers: { ...headers, "content-type": file.type } });
    if (dir) {
      const relative = normalize(path === "/" ? "/index.html" : path);
      try {
        const body = await Deno.readFile(join(dir, relative));
        return new Response(body, { headers: { ...headers, "content-type": contentType(relative) } });
      } catch {
        // falls through to 404
      }
    }
    return new Response("not found", { status: 404 });
  });
}
