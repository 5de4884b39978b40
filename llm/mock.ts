/**
 * `svc.llm.mock`: a provider that answers without a network (decisions/llm.md
 * "Mock"). An evolution prompt ("Apply the following changes") gets `{}`;
 * any other prompt gets a fixed valid spec whose id comes from the prompt's
 * `Model ID:` line: one number field `value` and `$.doubled = value * 2`.
 *
 * @module
 */
import type { LlmProvider, LlmRequest, LlmResponse } from "../engine/llm.ts";
import { modelIdOf } from "./prompts.ts";

/** The canned spec of the mock. */
export function mockSpec(modelId: string) {
  return {
    id: modelId,
    schema: { type: "object", properties: { value: { type: "number", default: 0 } } },
    derivations: [{ path: "$.doubled", expr: "value * 2" }],
    tests: [{ description: "doubles the value", given: { "$.value": 21 }, expect: { "$.doubled": 42 } }],
  };
}

/** The mock provider. */
export class MockProvider implements LlmProvider {
  readonly kind = "mock";
  readonly model = "mock";

  complete(request: LlmRequest): Promise<LlmResponse> {
    request.signal?.throwIfAborted();
    const prompt = [request.prompt ?? "", ...(request.messages ?? []).map((m) => m.content)].join("\n");
    const text = /Apply the following changes/.test(prompt)
      ? "{}"
      : JSON.stringify(mockSpec(modelIdOf(prompt) ?? "generated"));
    return Promise.resolve({ text, finishReason: "stop", toolCalls: [] });
  }
}
