/**
 * The progress frames of generation (README "Generation": requests to the
 * LLM, tool calls, validation attempts, test runs, retries) as lines a person
 * reads. Attempts are counted from 1 here (the frames count from 0).
 *
 * @module
 */
import type { ProgressEvent } from "../../engine/service/generation.ts";

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** One progress frame as a sentence; an unknown frame shows its JSON. */
export function progressLine(event: ProgressEvent): string {
  const attempt = `Attempt ${Number(event.attempt ?? 0) + 1}`;
  switch (event.type) {
    case "llm_requesting": {
      const { provider, model } = event;
      const who = [provider, model !== provider ? model : undefined].filter(Boolean).join(" ");
      return `${attempt}: asking the LLM${who ? ` (${who})` : ""}…`;
    }
    case "tool_calling":
      return `The LLM calls ${event.tool}${event.detail ? `: ${event.detail}` : ""}`;
    case "tool_completed":
      return `${event.tool} answered${event.resultSummary ? `: ${event.resultSummary}` : ""}`;
    case "validating":
      return `${attempt}: validating the answer`;
    case "validation_failed": {
      const errors = Array.isArray(event.errors) ? event.errors.map(String) : [];
      return `${attempt}: not valid${errors.length ? ` (${errors.join("; ")})` : ""}`;
    }
    case "test_running":
      return `${attempt}: running the embedded tests`;
    case "test_failed":
      return `${attempt}: ${plural(Number(event.failCount ?? 0), "test")} failed`;
    case "retrying":
      return `Retrying: attempt ${Number(event.attempt) + 1} of at most ${event.maxAttempts}`;
    default:
      return JSON.stringify(event);
  }
}
