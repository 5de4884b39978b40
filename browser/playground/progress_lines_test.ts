import assert from "node:assert/strict";
import type { ProgressEvent } from "../../engine/service/generation.ts";
import { progressLine } from "./progress_lines.ts";

Deno.test("progress frames read as sentences, attempts counted from 1", () => {
  const frames: ProgressEvent[] = [
    { type: "llm_requesting", attempt: 0, provider: "anthropic", model: "claude-sonnet-4-6" },
    { type: "llm_requesting", attempt: 1, provider: "mock", model: "mock" },
    { type: "tool_calling", tool: "eval_jsonata", detail: "value * 2" },
    { type: "tool_completed", tool: "eval_jsonata", resultSummary: "42" },
    { type: "validating", attempt: 0 },
    { type: "validation_failed", attempt: 0, errors: ["derivations[0].expr: JSONata compile error"] },
    { type: "test_running", attempt: 1 },
    { type: "test_failed", attempt: 1, failCount: 1 },
    { type: "retrying", attempt: 1, maxAttempts: 7 },
    { type: "something_new", n: 1 },
  ];
  assert.deepEqual(
    frames.map(progressLine),
    [
      "Attempt 1: asking the LLM (anthropic claude-sonnet-4-6)…",
      "Attempt 2: asking the LLM (mock)…",
      "The LLM calls eval_jsonata: value * 2",
      "eval_jsonata answered: 42",
      "Attempt 1: validating the answer",
      "Attempt 1: not valid (derivations[0].expr: JSONata compile error)",
      "Attempt 2: running the embedded tests",
      "Attempt 2: 1 test failed",
      "Retrying: attempt 2 of at most 7",
      '{"type":"something_new","n":1}',
    ],
  );
});
