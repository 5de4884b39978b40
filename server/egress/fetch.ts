/**
 * One guarded outbound HTTP request: the egress guard first, then a request
 * that connects to the address the guard checked (node:http's `lookup` hook
 * answers with it, so TLS still verifies the host name), redirects not
 * followed (a 3xx is returned as it is), a time limit, and a cap on the
 * response body.
 *
 * @module
 */
import http from "node:http";
import https from "node:https";
import { SERVICE_NAME, SERVICE_VERSION } from "../../engine/version.ts";
import { utf8Length } from "../utf8_length.ts";
import {
  checkEgress,
  EgressBlocked,
  EgressFailure,
  type EgressPolicy,
  EgressTooLarge,
  type Resolver,
  systemResolver,
} from "./guard.ts";

/** A request to send. */
export interface EgressRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** Sent as is; objects are sent as JSON by the caller. */
  body?: string | Uint8Array;
}

/** A response received in full. */
export interface EgressResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** Limits and ports of one request. */
export interface EgressOptions {
  policy: EgressPolicy;
  resolve?: Resolver;
  timeoutMs: number;
  /** The largest body accepted; a longer one fails the request. */
  maxResponseBytes: number;
  signal?: AbortSignal;
}

type LookupCallback = (
  error: Error | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/** A `lookup` that answers with the checked addresses only. */
function pinnedLookup(addresses: string[]) {
  const entries = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  return (_host: string, options: { all?: boolean }, callback: LookupCallback) => {
    if (options?.all) callback(null, entries);
    else callback(null, entries[0].address, entries[0].family);
  };
}

/** The service as it names itself to the services it calls. */
const USER_AGENT = `${SERVICE_NAME}/${SERVICE_VERSION}`;

/**
 * The request's headers with what node:http leaves out, unless given: a `User-Agent` (APIs such as GitHub's
 * refuse a request without one) and the body's `Content-Length` (the body would otherwise go chunked, which
 * services that want a length, many payment and cloud APIs, refuse with 411 or 400).
 */
function outgoingHeaders(request: EgressRequest): Record<string, string> {
  const headers = { ...request.headers };
  const given = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  if (!given.has("user-agent")) headers["user-agent"] = USER_AGENT;
  const body = request.body;
  if (body !== undefined && !given.has("content-length")) {
    headers["content-length"] = String(typeof body === "string" ? utf8Length(body) : body.byteLength);
  }
  return headers;
}

/**
 * Sends `request` through the guard. Refusals throw {@link EgressBlocked}, failures {@link EgressFailure}
 * ({@link EgressTooLarge} for an answer past `maxResponseBytes`).
 */
export async function guardedFetch(request: EgressRequest, options: EgressOptions): Promise<EgressResponse> {
  const target = await checkEgress(request.url, options.policy, options.resolve ?? systemResolver);
  const signal = options.signal
    ? AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)])
    : AbortSignal.timeout(options.timeoutMs);
  const client = target.url.protocol === "https:" ? https : http;
  return await new Promise<EgressResponse>((resolve, reject) => {
    const fail = (message: string) => reject(new EgressFailure(message));
    const outgoing = client.request({
      protocol: target.url.protocol,
      hostname: target.hostname,
      port: target.url.port || undefined,
      path: `${target.url.pathname}${target.url.search}`,
      method: request.method.toUpperCase(),
      headers: outgoingHeaders(request),
      lookup: pinnedLookup(target.addresses),
      signal,
    }, (incoming) => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      incoming.on("data", (chunk: Uint8Array) => {
        size += chunk.byteLength;
        if (size > options.maxResponseBytes) {
          incoming.destroy();
          reject(new EgressTooLarge(options.maxResponseBytes));
          return;
        }
        chunks.push(chunk);
      });
      incoming.on("end", () => {
        const body = new Uint8Array(size);
        let offset = 0;
        for (const chunk of chunks) {
          body.set(chunk, offset);
          offset += chunk.byteLength;
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
        }
        resolve({ status: incoming.statusCode ?? 0, headers, body });
      });
      incoming.on("error", (err: Error) => fail(err.message));
    });
    outgoing.on("error", (err: Error) => {
      if (signal.aborted) {
        fail(options.signal?.aborted ? "cancelled" : `no answer within ${options.timeoutMs} ms`);
      } else fail(err.message);
    });
    if (request.body !== undefined) outgoing.write(request.body);
    outgoing.end();
  });
}

export { EgressBlocked, EgressFailure, EgressTooLarge };
