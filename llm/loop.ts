/**
 * The validate-and-repair loop (decisions/llm.md "Repair loop"), shared by
 * the blocking and the streaming routes and by spec and evolution drafts:
 *
 * - budget: `1 + max-retries` attempts, and up to `1 + max-retries-hard`
 *   while the issue count strictly drops from one attempt to the next (an
 *   answer that is not JSON counts as infinitely many);
 * - temperature: `generation-temperature` first, then `repair + (n-1)·step`
 *   capped at `repair-temperature-max`;
 * - tools: every enabled tool on the first attempt, `eval_jsonata` alone on
 *   repairs, with the guidance the model looked up re-injected;
 * - feedback: JSON errors; a truncated answer is resent once with
 *   `min(2·max-tokens, max-tokens-hard)` tokens, then replaced by a "much
 *   shorter" prompt; validator findings with fix hints, an initial state
 *   creation would refuse, rollback constraints it breaks, a test run that
 *   errs or overruns, failing checkable tests, view lint;
 * - a candidate with only soft issues (tests, lint) is kept as the best
 *   effort when the budget runs out.
 *
 * @module
 */
import { badGateway } from "../engine/errors.ts";
import type { JsonObject } from "../engine/json/value.ts";
import { quoted } from "../engine/quoted.ts";
import { LlmCallError, type LlmMessage, type LlmProvider, type LlmResponse } from "../engine/llm.ts";
import type { InteractionRecord, ProgressEvent } from "../engine/service/generation.ts";
import type { LlmConfig } from "./config.ts";
import { parseAnswer } from "./json_text.ts";
import { type Issue, issuesFeedback, parseFeedback, shorterFeedback } from "./prompts.ts";
import type { ToolSession } from "./tools.ts";

/** How a candidate was judged. */
export interface Judgement<T> {
  /** Problems that make the candidate unusable (validator, initial state), under `errorTitle`. */
  errors: Issue[];
  errorTitle?: string;
  /** Problems of a usable candidate (failing tests, view lint). */
  soft: { title: string; issues: Issue[] }[];
  /** The accepted candidate, when `errors` is empty. */
  value?: T;
}

/** What the loop drafts. */
export interface LoopTarget<T> {
  kind: "spec" | "evolution";
  system: string;
  prompt: string;
  responseSchema?: JsonObject;
  responseName: string;
  judge(candidate: JsonObject, attempt: number): Promise<Judgement<T>>;
}

/**
 * Most characters of the last answer a failure carries (a 422's `rawResponse`):
 * a model can answer megabytes, which the error would echo to every client.
 */
export const MAX_RAW_RESPONSE_CHARS = 8000;

/** The loop's result; a failure's `raw` is {@link quoted} to {@link MAX_RAW_RESPONSE_CHARS}. */
export type LoopOutcome<T> =
  | { ok: true; value: T; raw: string }
  | { ok: false; errors: Issue[]; raw: string | null };

/** What the loop runs with. */
export interface LoopDeps {
  provider: LlmProvider;
  config: LlmConfig;
  tools: ToolSession;
  signal?: AbortSignal;
  progress?(event: ProgressEvent): void;
  /** Runs a provider call within the concurrency limit. */
  limit<R>(task: () => Promise<R>): Promise<R>;
  record(interaction: InteractionRecord): void;
  now(): number;
}

/** The temperature of attempt `n`. */
export function temperatureOf(config: LlmConfig, attempt: number): number {
  if (attempt === 0) return config.generationTemperature;
  const t = config.repairTemperature + (attempt - 1) * config.repairTemperatureStep;
  return Math.min(Math.round(t * 1000) / 1000, config.repairTemperatureMax);
}

/** Whether attempt `next` may run, given the issue counts of the attempts so far. */
export function mayRetry(config: LlmConfig, next: number, counts: readonly number[]): boolean {
  if (next <= config.maxRetries) return true;
  if (next > config.maxRetriesHard) return false;
  const [before, last] = counts.slice(-2);
  return counts.length >= 2 && last < before;
}

const flatten = (messages: LlmMessage[], system?: string) =>
  [system ? `[system]\n${system}` : "", ...messages.map((m) => `[${m.role}]\n${m.content}`)].filter(Boolean)
    .join(
      "\n\n",
    );

/** One provider call, logged as an interaction; a provider failure becomes a 502. */
async function call(
  deps: LoopDeps,
  system: string,
  messages: LlmMessage[],
  options: { tools: boolean; temperature: number; maxTokens: number; target: LoopTarget<unknown> },
): Promise<LlmResponse> {
  const started = deps.now();
  const base = {
    timestamp: new Date(started).toISOString(),
    system,
    user: messages.filter((m) => m.role === "user").at(-1)?.content ?? null,
    prompt: flatten(messages, system),
    provider: deps.provider.kind,
    model: deps.provider.model,
  };
  deps.tools.fetches = [];
  try {
    const response = await deps.limit(() =>
      deps.provider.complete({
        system,
        messages,
        responseSchema: options.target.responseSchema,
        responseName: options.target.responseName,
        tools: options.tools ? deps.tools.all() : deps.tools.repair(),
        maxToolIterations: deps.config.toolLoopMaxIterations,
        temperature: options.temperature,
        maxTokens: options.maxTokens,
        signal: deps.signal,
      })
    );
    deps.record({
      ...base,
      response: response.text,
      errorMessage: null,
      durationMs: deps.now() - started,
      webFetchCalls: deps.tools.fetches,
    });
    return response;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    deps.record({
      ...base,
      response: null,
      errorMessage: message,
      durationMs: deps.now() - started,
      webFetchCalls: deps.tools.fetches,
    });
    deps.signal?.throwIfAborted();
    if (err instanceof LlmCallError) throw badGateway(`LLM call failed: ${message}`);
    throw err;
  }
}

/** Runs the loop for `target`. */
export async function repairLoop<T>(target: LoopTarget<T>, deps: LoopDeps): Promise<LoopOutcome<T>> {
  const { config } = deps;
  const progress = (event: ProgressEvent) => deps.progress?.(event);
  const counts: number[] = [];
  let messages: LlmMessage[] = [{ role: "user", content: target.prompt }];
  let maxTokens = config.maxTokens;
  let truncations = 0;
  let lastRaw: string | null = null;
  let lastErrors: Issue[] = [];
  let best: { value: T; raw: string; count: number } | undefined;

  for (let attempt = 0;; attempt++) {
    progress({ type: "llm_requesting", attempt, provider: deps.provider.kind, model: deps.provider.model });
    const response = await call(deps, target.system, messages, {
      tools: attempt === 0,
      temperature: temperatureOf(config, attempt),
      maxTokens,
      target: target as LoopTarget<unknown>,
    });
    lastRaw = response.text;
    const parsed = parseAnswer(response.text, response.finishReason);
    let feedback: string;
    if (!parsed.ok) {
      counts.push(Number.POSITIVE_INFINITY);
      lastErrors = [{ location: "$", message: parsed.message }];
      progress({ type: "validation_failed", attempt, errors: [`$: ${lastErrors[0].message}`] });
      if (parsed.truncated) {
        truncations++;
        if (truncations === 1) {
          // The same prompt again, with room to finish.
          maxTokens = Math.min(2 * config.maxTokens, config.maxTokensHard);
          feedback = "";
        } else {
          messages = [{ role: "user", content: `${target.prompt}\n\n${shorterFeedback(target.kind)}` }];
          feedback = "";
        }
      } else {
        feedback = parseFeedback(parsed.message);
      }
    } else {
      progress({ type: "validating", attempt });
      const judged = await target.judge(parsed.value as JsonObject, attempt);
      const softCount = judged.soft.reduce((n, s) => n + s.issues.length, 0);
      if (judged.errors.length) {
        counts.push(judged.errors.length + softCount);
        lastErrors = judged.errors;
        progress({
          type: "validation_failed",
          attempt,
          errors: judged.errors.slice(0, 5).map((e) => `${e.location}: ${e.message}`),
        });
        feedback = issuesFeedback(
          target.kind,
          [{ title: judged.errorTitle ?? "Validation errors", issues: judged.errors }, ...judged.soft],
          deps.tools.guidance,
        );
      } else {
        counts.push(softCount);
        if (judged.value !== undefined && (!best || softCount < best.count)) {
          best = { value: judged.value, raw: response.text, count: softCount };
        }
        if (softCount === 0) return { ok: true, value: judged.value as T, raw: response.text };
        lastErrors = [];
        feedback = issuesFeedback(target.kind, judged.soft, deps.tools.guidance);
      }
    }
    const next = attempt + 1;
    if (!mayRetry(config, next, counts)) break;
    progress({
      type: "retrying",
      attempt: next,
      maxAttempts: 1 + (next <= config.maxRetries ? config.maxRetries : config.maxRetriesHard),
    });
    if (feedback) {
      messages = [
        { role: "user", content: target.prompt },
        { role: "assistant", content: response.text || "(no answer)" },
        { role: "user", content: feedback },
      ];
    }
  }
  if (best) return { ok: true, value: best.value, raw: best.raw };
  return {
    ok: false,
    errors: lastErrors,
    raw: lastRaw === null ? null : quoted(lastRaw, MAX_RAW_RESPONSE_CHARS),
  };
}

/** Issues from validator findings. */
export function issuesOf(
  findings: { location: string; message: string }[],
  hint: (m: string) => string | undefined,
): Issue[] {
  return findings.map((f) => ({ location: f.location, message: f.message, hint: hint(f.message) }));
}
