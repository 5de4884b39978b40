/**
 * Effect test helpers: a loopback HTTP target whose answers each test
 * scripts, the keys that let effects reach it (private addresses and
 * cleartext allowed), and polling for a state an executor brings about.
 *
 * @module
 */
import { call } from "../server/helpers.ts";

/** The `svc.effects.*` keys that let effects reach a loopback target. */
export const LOOPBACK_EFFECTS: Record<string, string> = {
  "svc.effects.allow-private-ips": "true",
  "svc.effects.allow-insecure-http": "true",
};

/** A request the target received. */
export interface Hit {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

/** A loopback HTTP server answering with `handler`. */
export interface Target {
  url: string;
  hits: Hit[];
  close(): Promise<void>;
}

/** Starts a target; `handler` sees each request with its number (0-based). */
export function startTarget(handler: (hit: Hit, n: number) => Response | Promise<Response>): Target {
  const hits: Hit[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const url = new URL(request.url);
    const hit = {
      method: request.method,
      path: url.pathname + url.search,
      headers: request.headers,
      body: await request.text(),
    };
    hits.push(hit);
    return await handler(hit, hits.length - 1);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    hits,
    close: () => server.shutdown(),
  };
}

/** Polls `read` until `done` holds of its value (5 s at most); returns the value. */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A model's merged state over REST. */
// deno-lint-ignore no-explicit-any
export async function stateOf(base: string, id: string, apiKey?: string): Promise<any> {
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  return (await call(base, "GET", `/models/${encodeURIComponent(id)}/state`, undefined, headers)).json;
}

/** A model with one server effect on `url`, folding `$response.rate` into `rate`. */
export function rateModel(url: string, effect: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "quote",
    schema: {
      type: "object",
      properties: {
        region: { type: "string" },
        enabled: { type: "boolean" },
        rate: { type: "number" },
        io: { type: "object" },
      },
    },
    effects: [{
      id: "fetch",
      executor: "server",
      trigger: "enabled and region != null",
      dedupeKey: "region",
      request: { url: `${url}/rate?region={ region }` },
      response: { set: { "$.rate": "$response.rate" } },
      statusPath: "$.io.fetch",
      ...effect,
    }],
  };
}

/**
 * A model whose timer, armed by `status = 'open'`, sets `status` to `expired`
 * after `afterMs` and counts its firings in `n` (status document at `$.io`).
 */
export function expiringModel(id: string, afterMs: number): Record<string, unknown> {
  return {
    id,
    schema: { type: "object", properties: { status: { type: "string" }, n: { type: "integer" }, io: {} } },
    effects: [{
      id: "expire",
      executor: "timer",
      trigger: "status = 'open'",
      dedupeKey: "status",
      afterMs: String(afterMs),
      response: { set: { "$.status": "'expired'", "$.n": "($exists(n) ? n : 0) + 1" } },
      statusPath: "$.io",
    }],
  };
}

/** The values the audit trail of model `id` records as written to `address`, newest first. */
export async function writesTo(base: string, id: string, address: string): Promise<unknown[]> {
  const audit = (await call(base, "GET", `/models/${id}/audit`)).json as {
    mutations: Record<string, unknown>;
  }[];
  return audit.filter((r) => address in (r.mutations ?? {})).map((r) => r.mutations[address]);
}
