/**
 * The `llm` effect kind over the LLM provider port: one structured completion
 * of the effect's prompt (with its `responseSchema` when it has one); the
 * answer, parsed as JSON when it is JSON, is `$response`.
 *
 * @module
 */
import type { LlmProvider } from "../llm.ts";
import { isObject, type Json, type JsonObject } from "../json/value.ts";
import type { EffectExecutor } from "./executor.ts";

/** The answer as JSON when it is a JSON document, else its text. */
function parsed(text: string): Json {
  const trimmed = text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, "$1");
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}

/** The `llm` executor of a host with a provider. */
export function llmExecutor(provider: LlmProvider): EffectExecutor {
  return {
    kind: "llm",
    async execute(job, { signal }) {
      if (job.work.type !== "llm") return { ok: false, error: "not an llm request", retryable: false };
      const schema = isObject(job.work.responseSchema) ? job.work.responseSchema as JsonObject : undefined;
      try {
        const answer = await provider.complete({
          prompt: job.work.prompt,
          ...(schema ? { responseSchema: schema, responseName: job.effectId } : {}),
          signal,
        });
        if (answer.finishReason === "length") {
          return { ok: false, error: "the answer was cut at the token budget", retryable: true };
        }
        return { ok: true, response: parsed(answer.text), status: null };
      } catch (err) {
        return { ok: false, error: `llm: ${(err as Error).message}`, retryable: true };
      }
    },
  };
}
