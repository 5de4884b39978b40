import assert from "node:assert/strict";
import type { LlmProvider, LlmRequest } from "../llm.ts";
import { llmExecutor } from "./llm_executor.ts";
import { effectService } from "./test_support.ts";

Deno.test("an llm effect makes one structured completion; its JSON answer is $response", async () => {
  const asked: LlmRequest[] = [];
  const provider: LlmProvider = {
    kind: "stub",
    model: "stub-1",
    complete(request) {
      asked.push(request);
      return Promise.resolve({
        text: '```json\n{"category": "billing", "urgency": 4}\n```',
        finishReason: "stop",
        toolCalls: [],
      });
    },
  };
  const { service, scheduler } = await effectService([llmExecutor(provider)]);
  await service.createModel({
    id: "ticket",
    schema: {
      type: "object",
      properties: { text: { type: "string" }, category: { type: "string" }, urgency: {}, io: {} },
    },
    effects: [{
      id: "classify",
      executor: "llm",
      trigger: "text != null",
      dedupeKey: "text",
      prompt: "'Classify: ' & text",
      responseSchema: { type: "object", properties: { category: { type: "string" } } },
      response: { set: { "$.category": "$response.category", "$.urgency": "$response.urgency" } },
      statusPath: "$.io",
    }],
  });
  await service.mutate("ticket", { "$.text": "I was charged twice" });
  await scheduler.advance(0);
  const state = await service.getState("ticket") as {
    category: string;
    urgency: number;
    io: { phase: string };
  };
  assert.deepEqual([state.category, state.urgency, state.io.phase], ["billing", 4, "applied"]);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].prompt, "Classify: I was charged twice");
  assert.deepEqual(asked[0].responseSchema, { type: "object", properties: { category: { type: "string" } } });
  await service.close();
});
