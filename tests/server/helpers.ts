/**
 * Test helpers: a real server on a free 127.0.0.1 port, configured from a map
 * of `svc.*` keys, with its log lines captured; small fetch wrappers that
 * always consume the body (no leaked resources).
 *
 * @module
 */
import { envName } from "../../engine/config.ts";
import { loadConfig, type LoadedConfig } from "../../server/config.ts";
import type { Logger } from "../../server/log.ts";
import {
  assembleServer,
  type RunningServer,
  type ServerOptions,
  type ServerParts,
  startServer,
} from "../../server/main.ts";

/** A running test server and what it logged. */
export interface TestServer extends RunningServer {
  logs: string[];
  /** `ws://` base URL. */
  wsUrl: string;
}

/** A logger that keeps every line. */
export function captureLogger(lines: string[]): Logger {
  return {
    info: (m) => lines.push(`info: ${m}`),
    warn: (m) => lines.push(`warning: ${m}`),
    error: (m) => lines.push(`error: ${m}`),
  };
}

/** A configuration from a map of svc.* keys (as if they were environment variables). */
export function configOf(keys: Record<string, string>): Promise<LoadedConfig> {
  const env = new Map(
    Object.entries(keys).map(([key, value]) => [envName(key), value]),
  );
  return loadConfig([], (name) => env.get(name));
}

/** Starts a server on 127.0.0.1 with a free port; `keys` are svc.* settings (memory storage unless set). */
export async function startTestServer(
  keys: Record<string, string> = {},
  { defaultHost = false, ...options }: Partial<Omit<ServerOptions, "config">> & {
    /** Leave `svc.host` unset, as a default configuration does (open mode then binds loopback). */
    defaultHost?: boolean;
  } = {},
): Promise<TestServer> {
  const config = await configOf({
    ...(defaultHost ? {} : { "svc.host": "127.0.0.1" }),
    "svc.port": "0",
    "svc.storage.type": "memory",
    ...keys,
  });
  const logs: string[] = [];
  const server = await startServer({ log: captureLogger(logs), ...options, config });
  return { ...server, logs, wsUrl: server.url.replace(/^http/, "ws") };
}

/** The app without a listener, for `app.request()`; `close()` releases it. */
export async function inProcessServer(
  keys: Record<string, string> = {},
): Promise<ServerParts & { logs: string[]; close(): Promise<void> }> {
  const logs: string[] = [];
  const config = await configOf({ "svc.storage.type": "memory", ...keys });
  const parts = await assembleServer({ config, log: captureLogger(logs) });
  return {
    ...parts,
    logs,
    close: async () => {
      parts.subscriptions.close();
      await parts.service.close();
    },
  };
}

/** A response read completely. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

/** Sends a request and reads the whole body; `body` objects are sent as JSON. */
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" || body instanceof FormData || body instanceof Uint8Array
      ? body as BodyInit
      : JSON.stringify(body);
    if (!(body instanceof FormData) && !("content-type" in headers) && !("Content-Type" in headers)) {
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
  }
  const response = await fetch(base + path, init);
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Uploads `content` as the multipart `file` part of `POST /blobs`. */
export function uploadBlob(
  base: string,
  content: BlobPart,
  options: { type?: string; mediaType?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const form = new FormData();
  form.append("file", new Blob([content], options.type ? { type: options.type } : {}), "upload.bin");
  if (options.mediaType) form.append("mediaType", options.mediaType);
  return call(base, "POST", "/blobs", form, options.headers);
}

/** The order spec most tests use: qty and price, a derived total, a rollback and a flag constraint. */
export function orderSpec(id = "order"): Record<string, unknown> {
  return {
    id,
    schema: {
      type: "object",
      properties: {
        qty: { type: "integer", minimum: 0 },
        price: { type: "number" },
        note: { type: "string" },
        items: { type: "array", items: { type: "object", properties: { sku: { type: "string" } } } },
        file: { type: "object" },
      },
    },
    derivations: [{ path: "$.total", expr: "qty * price" }],
    constraints: [
      { id: "max-qty", expr: "qty <= 100", message: "qty must not exceed 100", policy: "rollback" },
      { id: "big-order", expr: "$not(total > 500)", message: "large order", policy: "flag" },
    ],
    effects: [{
      id: "notify",
      executor: "caller",
      trigger: "qty > 50",
      emit: "'big'",
      payload: "{'n': qty}",
    }],
    tests: [{ description: "total", given: { "$.qty": 2, "$.price": 3 }, expect: { "$.total": 6 } }],
  };
}

/** A model with a library: a function with a signature and a value computed from a constant. */
export function librarySpec(id = "priced"): Record<string, unknown> {
  return {
    id,
    schema: { type: "object", properties: { net: { type: "number" } } },
    constants: { vat: 0.2 },
    library: {
      description: "pricing helpers",
      define: "( $rate := $const.vat; $gross := function($net) { $round($net * (1 + $rate), 2) }; " +
        '["gross", "rate"] )',
      signatures: { gross: "<n:n>" },
    },
    derivations: [{ path: "$.gross", expr: "$gross(net)" }],
  };
}

/** The exports of {@link librarySpec}, as the library read lists them. */
export const LIBRARY_EXPORTS = [
  { name: "gross", kind: "function", signature: "<n:n>", arity: 1, origin: "local" },
  { name: "rate", kind: "constant", value: 0.2, origin: "local" },
];

/** Encodes an address as one path segment. */
export const seg = (address: string): string => encodeURIComponent(address);

/** The CLI entry of the sources. */
export const CLI_MAIN: string = new URL("../../cli/main.ts", import.meta.url).pathname;

/** A `svc serve` child process. */
export interface ServeProcess {
  /** Base URL from the startup line; `undefined` when the process ended before printing it. */
  url?: string;
  /** Sends SIGTERM (or `signal`) and resolves with the exit code and everything printed. */
  stop(signal?: Deno.Signal): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** Options of {@link spawnServe}. */
export interface ServeOptions {
  /** Extra environment (on top of the inherited one). */
  env?: Record<string, string>;
  /** The script `deno run` starts; the sources' cli/main.ts by default. */
  script?: string;
  /** Extra `deno run` flags placed before the script. */
  denoFlags?: string[];
  /** Arguments after `serve`. */
  args?: string[];
  cwd?: string;
}

/** Starts `deno run -A [flags] <script> serve [args]` on a free loopback port. */
export async function spawnServe(options: ServeOptions = {}): Promise<ServeProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      ...(options.denoFlags ?? []),
      options.script ?? CLI_MAIN,
      "serve",
      ...(options.args ?? []),
    ],
    stdout: "piped",
    stderr: "piped",
    cwd: options.cwd,
    env: { NO_COLOR: "1", SVC_HOST: "127.0.0.1", SVC_PORT: "0", ...options.env },
  }).spawn();
  const decoder = new TextDecoder();
  const reader = child.stdout.getReader();
  let stdout = "";
  let url: string | undefined;
  while (!url) {
    const { done, value } = await reader.read();
    if (done) break;
    stdout += decoder.decode(value, { stream: true });
    url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
  }
  const rest = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return stdout;
      stdout += decoder.decode(value, { stream: true });
    }
  })();
  const stderr = new Response(child.stderr).text();
  return {
    url,
    stop: async (signal: Deno.Signal = "SIGTERM") => {
      try {
        child.kill(signal);
      } catch {
        // Already ended.
      }
      const { code } = await child.status;
      return { code, stdout: await rest, stderr: await stderr };
    },
  };
}
