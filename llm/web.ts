/**
 * The web tools' back ends: page fetching with HTML reduced to text (through
 * the guarded egress port), and web search behind one port with a keyless
 * default (DuckDuckGo's HTML page) and two keyed APIs (Brave, Tavily).
 *
 * @module
 */
import type { WebFetchRecord } from "../engine/service/generation.ts";
import type { WebSearchProvider } from "./config.ts";
import { EgressRefused, type GuardedFetch } from "./egress.ts";

/** The longest URL `web_fetch` takes. */
export const MAX_URL_CHARS = 2048;
/** `web_fetch` gives up after this long. */
export const FETCH_TIMEOUT_MS = 10_000;
/** Bytes of a page read at most (the text is cut far shorter). */
const MAX_PAGE_BYTES = 2 * 1024 * 1024;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Decodes the common HTML entities. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1].toLowerCase() === "x" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** The readable text of an HTML page: scripts, styles and tags gone, blocks on their own lines. */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<(br|\/p|\/div|\/li|\/tr|\/h[1-6]|\/section|\/article|\/table|hr)\b[^>]*>/gi, "\n")
    .replace(/<(td|th)\b[^>]*>/gi, " | ")
    .replace(/<[^>]+>/g, " ");
  return decodeEntities(text)
    .split("\n")
    .map((l) => l.replace(/[ \t\f\v\r]+/g, " ").trim())
    .filter(Boolean)
    .join("\n");
}

/** Reads at most `max` bytes of a body as text. */
async function readCapped(response: Response, max: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(Math.min(size, max));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, Math.min(chunk.byteLength, bytes.byteLength - offset));
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** A fetched page as the tool answers it, and its log record. */
export interface FetchedPage {
  text: string;
  record: WebFetchRecord;
}

/** Fetches a page for the model: checks, guarded egress, redirects and errors as text, HTML to text, cut. */
export async function fetchPage(
  url: string,
  guarded: GuardedFetch,
  maxChars: number,
  signal?: AbortSignal,
): Promise<FetchedPage> {
  const record: WebFetchRecord = {
    url,
    responseCode: null,
    mediaType: null,
    rawLength: 0,
    extractedLength: 0,
  };
  const refuse = (why: string) => ({ text: `[web_fetch refused: ${why}]`, record });
  if (url.length > MAX_URL_CHARS) return refuse(`the URL is longer than ${MAX_URL_CHARS} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse("not a URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return refuse("only http and https URLs");
  const host = parsed.hostname.toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return refuse("localhost is not reachable");
  const timeout = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  let response: Response;
  try {
    response = await guarded(parsed.href, {
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      headers: { accept: "text/html, text/plain, application/json;q=0.9, */*;q=0.5" },
    });
  } catch (err) {
    signal?.throwIfAborted();
    if (err instanceof EgressRefused) return refuse(err.message);
    if (timeout.aborted) return refuse(`no answer within ${FETCH_TIMEOUT_MS / 1000} s`);
    return { text: `[web_fetch failed: ${(err as Error).message}]`, record };
  }
  record.responseCode = response.status;
  record.mediaType = response.headers.get("content-type")?.split(";")[0].trim() || null;
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    return { text: `[Redirect to ${response.headers.get("location") ?? "?"} not followed]`, record };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return { text: `[HTTP ${response.status} from ${host}]`, record };
  }
  const raw = await readCapped(response, MAX_PAGE_BYTES);
  record.rawLength = raw.length;
  const html = record.mediaType?.includes("html") || /^\s*<(!doctype|html)/i.test(raw);
  let text = html ? htmlToText(raw) : raw.trim();
  if (text.length > maxChars) text = `${text.slice(0, maxChars)}\n[… cut at ${maxChars} characters]`;
  record.extractedLength = text.length;
  return { text, record };
}

// ------------------------------------------------------------------- search

/** One search hit. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** The web search port. */
export interface WebSearch {
  readonly name: string;
  search(query: string, maxResults: number, signal?: AbortSignal): Promise<SearchResult[]>;
}

/** Options of {@link webSearchOf}. */
export interface SearchOptions {
  provider: WebSearchProvider;
  apiKey: string | null;
  /** The HTTP port (plain fetch by default: the endpoints are fixed public hosts). */
  fetch?: typeof fetch;
}

const strip = (html: string) => decodeEntities(html.replace(/<[^>]+>/g, "")).replace(/\s+/g, " ").trim();

/** The DuckDuckGo result link's target (`//duckduckgo.com/l/?uddg=<url>`). */
function duckTarget(href: string): string {
  const decoded = decodeEntities(href);
  try {
    const url = new URL(decoded, "https://duckduckgo.com");
    return url.searchParams.get("uddg") ?? url.href;
  } catch {
    return decoded;
  }
}

/** The search back end of `provider`. */
export function webSearchOf(options: SearchOptions): WebSearch {
  const http = options.fetch ?? fetch;
  const get = async (request: Request, signal?: AbortSignal) => {
    const timeout = AbortSignal.timeout(FETCH_TIMEOUT_MS);
    const response = await http(
      new Request(request, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout }),
    );
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`${options.provider} answered HTTP ${response.status}`);
    }
    return response;
  };
  switch (options.provider) {
    case "duckduckgo":
      return {
        name: "duckduckgo",
        async search(query, maxResults, signal) {
          const url = `https://html.duckduckgo.com/html/?q=${encodeURIComponent(query)}`;
          const html =
            await (await get(new Request(url, { headers: { "user-agent": "Mozilla/5.0 svc" } }), signal))
              .text();
          const results: SearchResult[] = [];
          const links = [
            ...html.matchAll(/<a[^>]*class="[^"]*result__a[^"]*"[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g),
          ];
          const snippets = [...html.matchAll(/class="[^"]*result__snippet[^"]*"[^>]*>([\s\S]*?)<\/a>/g)];
          for (const [i, link] of links.entries()) {
            if (results.length >= maxResults) break;
            results.push({
              title: strip(link[2]),
              url: duckTarget(link[1]),
              snippet: strip(snippets[i]?.[1] ?? ""),
            });
          }
          return results;
        },
      };
    case "brave":
      return {
        name: "brave",
        async search(query, maxResults, signal) {
          const url = `https://api.search.brave.com/res/v1/web/search?q=${
            encodeURIComponent(query)
          }&count=${maxResults}`;
          const body = await (await get(
            new Request(url, {
              headers: { accept: "application/json", "x-subscription-token": options.apiKey ?? "" },
            }),
            signal,
          )).json();
          const hits = (body?.web?.results ?? []) as { title?: string; url?: string; description?: string }[];
          return hits.slice(0, maxResults).map((h) => ({
            title: strip(h.title ?? ""),
            url: h.url ?? "",
            snippet: strip(h.description ?? ""),
          }));
        },
      };
    case "tavily":
      return {
        name: "tavily",
        async search(query, maxResults, signal) {
          const body = await (await get(
            new Request("https://api.tavily.com/search", {
              method: "POST",
              headers: {
                "content-type": "application/json",
                authorization: `Bearer ${options.apiKey ?? ""}`,
              },
              body: JSON.stringify({ query, max_results: maxResults }),
            }),
            signal,
          )).json();
          const hits = (body?.results ?? []) as { title?: string; url?: string; content?: string }[];
          return hits.slice(0, maxResults).map((h) => ({
            title: h.title ?? "",
            url: h.url ?? "",
            snippet: (h.content ?? "").slice(0, 500),
          }));
        },
      };
  }
}
