/**
 * Helpers of the generation tests: a real server whose provider points at a
 * scripted stub (`svc.llm.base-url`), valid and broken specs to script, and a
 * reader of server-sent event streams.
 *
 * @module
 */
import type { ProviderKind } from "../../llm/config.ts";
import type { LlmHostOptions } from "../../llm/mod.ts";
import { startTestServer, type TestServer } from "../server/helpers.ts";
import type { LlmStub } from "./stub_server.ts";

/** The base URL of `kind` on the stub (Gemini's native API sits under /v1beta). */
export function stubBase(stub: LlmStub, kind: ProviderKind): string {
  return kind === "gemini" ? `${stub.url}/v1beta` : `${stub.url}/v1`;
}

/** A server whose provider `kind` talks to `stub`. */
export function serverOn(
  stub: LlmStub,
  kind: ProviderKind = "openai",
  keys: Record<string, string> = {},
  llm: LlmHostOptions = {},
): Promise<TestServer> {
  return startTestServer({
    "svc.llm.provider": kind,
    "svc.llm.api-key": "test-key-123",
    "svc.llm.base-url": stubBase(stub, kind),
    ...keys,
  }, { llm });
}

/** A valid spec (with a passing test) under `id`. */
export function validSpec(id = "shop/cart"): Record<string, unknown> {
  return {
    id,
    schema: {
      type: "object",
      properties: { qty: { type: "integer", default: 1 }, price: { type: "number", default: 2 } },
    },
    derivations: [{ path: "$.total", expr: "qty * price" }],
    tests: [{ description: "total", given: { "$.qty": 3, "$.price": 2 }, expect: { "$.total": 6 } }],
  };
}

/** A spec the validator refuses: an unknown member and a broken expression. */
export function invalidSpec(id = "shop/cart"): Record<string, unknown> {
  return {
    ...validSpec(id),
    derivatons: [],
    derivations: [{ path: "$.total", expr: "qty * (price" }],
  };
}

/** One server-sent event. */
export interface Frame {
  event: string;
  // deno-lint-ignore no-explicit-any
  data: any;
}

/** Parses a whole event stream. */
export function parseFrames(text: string): Frame[] {
  return text.split(/\n\n+/).filter((block) => block.trim()).map((block) => {
    const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
    const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
    return { event, data: JSON.parse(data) };
  });
}

/** POSTs JSON and reads the answer as events (or the error body when it is not a stream). */
export async function postStream(
  base: string,
  path: string,
  body: unknown,
): Promise<{ status: number; contentType: string; frames: Frame[]; text: string }> {
  const response = await fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const contentType = response.headers.get("content-type") ?? "";
  return {
    status: response.status,
    contentType,
    frames: contentType.startsWith("text/event-stream") ? parseFrames(text) : [],
    text,
  };
}
