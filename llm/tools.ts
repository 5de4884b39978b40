/**
 * The tools offered to the model during one generation session
 * (decisions/llm.md "Tools"): `get_domain_guidance`, `eval_jsonata`,
 * `web_fetch` and `web_search`, each switched by its `svc.llm.*` key. Web
 * calls have a per-session budget (a spent budget answers a "limit reached"
 * text); a repeated call is answered from the session's cache for free. Tool
 * calls are reported as progress (`tool_calling`, `tool_completed`).
 *
 * @module
 */
import { guidance, GUIDANCE_TOPIC_IDS } from "../engine/authoring/mod.ts";
import { ServiceError } from "../engine/errors.ts";
import { isObject, type Json } from "../engine/json/value.ts";
import type { LlmTool } from "../engine/llm.ts";
import type { AuthoringEngine } from "../engine/service/authoring.ts";
import type { ProgressEvent, WebFetchRecord } from "../engine/service/generation.ts";
import type { LlmConfig } from "./config.ts";
import type { GuardedFetch } from "./egress.ts";
import { toolDetail } from "./prompts.ts";
import { fetchPage, type WebSearch } from "./web.ts";

/** What the web tools reach the web through. */
export interface WebPorts {
  /** The guarded egress of `web_fetch`. */
  fetch: GuardedFetch;
  /** The configured search back end. */
  search: WebSearch;
}

const SUMMARY_CHARS = 160;

/** Characters of an `eval_jsonata` answer the model gets at most (as a `web_fetch` page by default). */
export const EVAL_RESULT_CHARS = 8000;

/** A short summary of a tool answer, for progress reports. */
function summary(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SUMMARY_CHARS ? `${flat.slice(0, SUMMARY_CHARS - 3)}...` : flat;
}

/** The tools of one generation session, with their budgets and cache. */
export class ToolSession {
  /** Guidance topics the model read (re-injected into repair prompts). */
  readonly guidance: string[] = [];
  /** Pages fetched during the current provider call (moved to its interaction record). */
  fetches: WebFetchRecord[] = [];
  readonly #config: LlmConfig;
  readonly #web: WebPorts;
  readonly #authoring: AuthoringEngine;
  readonly #progress?: (event: ProgressEvent) => void;
  readonly #cache = new Map<string, string>();
  #fetchCalls = 0;
  #searchCalls = 0;

  constructor(
    config: LlmConfig,
    web: WebPorts,
    authoring: AuthoringEngine,
    progress?: (event: ProgressEvent) => void,
  ) {
    this.#config = config;
    this.#web = web;
    this.#authoring = authoring;
    this.#progress = progress;
  }

  /** Every enabled tool (the first attempt). */
  all(): LlmTool[] {
    const c = this.#config;
    return [
      c.domainGuidance.enabled ? this.#guidanceTool() : undefined,
      c.evalTool.enabled ? this.#evalTool() : undefined,
      c.webFetch.enabled && c.webFetch.maxCalls > 0 ? this.#fetchTool() : undefined,
      c.webSearch.enabled && c.webSearch.maxCalls > 0 ? this.#searchTool() : undefined,
    ].filter((t): t is LlmTool => t !== undefined);
  }

  /** The tools of a repair attempt: `eval_jsonata` only. */
  repair(): LlmTool[] {
    return this.#config.evalTool.enabled ? [this.#evalTool()] : [];
  }

  /** Wraps a tool body with progress reports and the session cache. */
  #tool(
    name: string,
    description: string,
    inputSchema: Json,
    body: (input: Record<string, Json>, signal?: AbortSignal) => Promise<string>,
  ): LlmTool {
    return {
      name,
      description,
      inputSchema: inputSchema as LlmTool["inputSchema"],
      execute: async (input, signal) => {
        const args = isObject(input) ? input : {};
        this.#progress?.({ type: "tool_calling", tool: name, detail: toolDetail(args) });
        const key = `${name} ${JSON.stringify(args)}`;
        let answer = this.#cache.get(key);
        if (answer === undefined) {
          try {
            answer = await body(args, signal);
          } catch (err) {
            signal?.throwIfAborted();
            answer = `[${name} failed: ${(err as Error).message}]`;
          }
          this.#cache.set(key, answer);
        }
        this.#progress?.({ type: "tool_completed", tool: name, resultSummary: summary(answer) });
        return answer;
      },
    };
  }

  #guidanceTool(): LlmTool {
    return this.#tool(
      "get_domain_guidance",
      "Worked JSONata patterns for common domain problems, as spec fragments with a sample run. Ask for the " +
        "topics your domain needs before writing derivations.",
      {
        type: "object",
        properties: {
          topics: { type: "array", items: { type: "string", enum: [...GUIDANCE_TOPIC_IDS] }, minItems: 1 },
        },
        required: ["topics"],
        additionalProperties: false,
      },
      (input) => {
        const topics = Array.isArray(input.topics) ? input.topics.map(String) : [];
        try {
          const text = JSON.stringify({ topics: guidance(topics) });
          this.guidance.push(text);
          return Promise.resolve(text);
        } catch (err) {
          return Promise.resolve(`[get_domain_guidance: ${(err as Error).message}]`);
        }
      },
    );
  }

  #evalTool(): LlmTool {
    return this.#tool(
      "eval_jsonata",
      "Evaluate a JSONata expression against a sample input document; returns {result, type} or the exact " +
        `compile or evaluation error, cut at ${EVAL_RESULT_CHARS} characters. Use it to check derivations ` +
        "before answering.",
      {
        type: "object",
        properties: {
          expr: { type: "string", description: "the JSONata expression" },
          input: { description: "the sample document the expression reads (default null)" },
        },
        required: ["expr"],
      },
      async (input) => {
        if (typeof input.expr !== "string") return "[eval_jsonata: expr must be a string]";
        try {
          const text = JSON.stringify(await this.#authoring.evalExpression(input.expr, input.input ?? null));
          // A huge result would go back to the provider (and into the session cache) whole: cut like a page.
          return text.length > EVAL_RESULT_CHARS
            ? `${
              text.slice(0, EVAL_RESULT_CHARS)
            }\n[… cut at ${EVAL_RESULT_CHARS} of ${text.length} characters]`
            : text;
        } catch (err) {
          if (err instanceof ServiceError) return `error: ${err.message}`;
          throw err;
        }
      },
    );
  }

  #fetchTool(): LlmTool {
    const { maxCalls, maxChars } = this.#config.webFetch;
    return this.#tool(
      "web_fetch",
      `Fetch a public web page (http or https) as plain text, cut at ${maxChars} characters. At most ${maxCalls} ` +
        "pages per generation.",
      {
        type: "object",
        properties: { url: { type: "string", description: "the page's URL" } },
        required: ["url"],
        additionalProperties: false,
      },
      async (input, signal) => {
        if (this.#fetchCalls >= maxCalls) {
          return `[web_fetch limit reached: ${maxCalls} pages per generation; answer with what you have]`;
        }
        this.#fetchCalls++;
        const page = await fetchPage(String(input.url ?? ""), this.#web.fetch, maxChars, signal);
        this.fetches.push(page.record);
        return page.text;
      },
    );
  }

  #searchTool(): LlmTool {
    const { maxCalls, maxResults } = this.#config.webSearch;
    return this.#tool(
      "web_search",
      `Search the web; returns up to ${maxResults} results (title, URL, snippet). At most ${maxCalls} searches ` +
        "per generation.",
      {
        type: "object",
        properties: { query: { type: "string", description: "what to search for" } },
        required: ["query"],
        additionalProperties: false,
      },
      async (input, signal) => {
        if (this.#searchCalls >= maxCalls) {
          return `[web_search limit reached: ${maxCalls} searches per generation; answer with what you have]`;
        }
        this.#searchCalls++;
        const results = await this.#web.search.search(String(input.query ?? ""), maxResults, signal);
        if (!results.length) return "[no results]";
        return results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}\n   ${r.snippet}`).join("\n");
      },
    );
  }
}
