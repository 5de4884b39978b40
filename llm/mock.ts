/**
 * `svc.llm.mock`: a provider that answers without a network (decisions/llm.md
 * "Mock"). An evolution prompt ("Apply the following changes") gets `{}`
 * (no change, which the evolution loop refuses);
 * any other prompt gets a fixed valid spec whose id comes from the prompt's
 * `Model ID:` line: one number field `value` and `$.doubled = value * 2`, with
 * a view of both when the prompt asks for one.
 *
 * Tests and demos script it with `mock:` words in the description or change
 * request (they ride in the prompt, so every surface can use them):
 *
 * - `mock:delay=<ms>` waits that long before every answer (a cancelled call
 *   stops waiting), so progress can be watched and a generation cancelled;
 * - `mock:tool` calls the `eval_jsonata` tool once before its first answer;
 * - `mock:repair` answers a spec that does not compile first, then the
 *   canned one;
 * - `mock:invalid` never answers a valid spec (the loop ends with 422);
 * - `mock:derive=<field>=<expr>` (no spaces) makes an evolution answer add
 *   the derivation `$.<field>`, and a tile for it in the default view when the
 *   prompt lets the view change, instead of `{}`.
 *
 * @module
 */
import { isObject, type JsonObject } from "../engine/json/value.ts";
import type { LlmProvider, LlmRequest, LlmResponse } from "../engine/llm.ts";
import { modelIdOf } from "./prompts.ts";

/** The canned spec of the mock; `withView` adds a view of the value and its double. */
export function mockSpec(modelId: string, withView = false) {
  return {
    id: modelId,
    schema: { type: "object", properties: { value: { type: "number", default: 0 } } },
    derivations: [{ path: "$.doubled", expr: "value * 2" }],
    tests: [{ description: "doubles the value", given: { "$.value": 21 }, expect: { "$.doubled": 42 } }],
    ...(withView
      ? {
        viewDefinition: {
          defaultView: "main",
          views: [{
            id: "main",
            label: modelId,
            components: [
              { id: "value", type: "numericField", label: "Value", bind: "$.value" },
              { id: "doubled", type: "statTile", label: "Doubled", bind: "$.doubled" },
            ],
          }],
        },
      }
      : {}),
  };
}

/** The `mock:` words of a prompt: name to value (`""` for a bare word). */
export function mockScript(prompt: string): Map<string, string> {
  return new Map([...prompt.matchAll(/\bmock:([a-z]+)(?:=(\S+))?/g)].map((m) => [m[1], m[2] ?? ""]));
}

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal?.addEventListener("abort", stop, { once: true });
  });
}

/** The evolution of `mock:derive=<field>=<expr>` against the prompt's current spec. */
function derivationEvolution(prompt: string, field: string, expr: string): JsonObject {
  const evolution: JsonObject = { upsertDerivations: [{ path: `$.${field}`, expr }] };
  if (!/Update the viewDefinition/.test(prompt)) return evolution;
  let current: unknown;
  try {
    current = JSON.parse(
      /^Current spec:\n([\s\S]*?)\n\nApply the following changes/m.exec(prompt)?.[1] ?? "",
    );
  } catch {
    return evolution;
  }
  const view = isObject(current) && isObject(current.viewDefinition) ? current.viewDefinition : undefined;
  const viewId = view?.defaultView;
  if (typeof viewId !== "string") return evolution;
  const label = field.charAt(0).toUpperCase() + field.slice(1);
  evolution.upsertComponents = [{
    viewId,
    component: { id: field, type: "statTile", label, bind: `$.${field}` },
  }];
  return evolution;
}

/** The mock provider. */
export class MockProvider implements LlmProvider {
  readonly kind = "mock";
  readonly model = "mock";

  async complete(request: LlmRequest): Promise<LlmResponse> {
    request.signal?.throwIfAborted();
    const messages = request.messages ?? [];
    const prompt = [request.prompt ?? "", ...messages.map((m) => m.content)].join("\n");
    const script = mockScript(prompt);
    const wait = Number(script.get("delay"));
    if (wait > 0) await delay(wait, request.signal);
    const first = messages.length <= 1;
    const toolCalls: LlmResponse["toolCalls"] = [];
    const evalTool = request.tools?.find((t) => t.name === "eval_jsonata");
    if (script.has("tool") && first && evalTool) {
      const input = { expr: "value * 2", input: { value: 21 } };
      await evalTool.execute(input, request.signal);
      toolCalls.push({ name: evalTool.name, input });
    }
    let answer: unknown;
    if (/Apply the following changes/.test(prompt)) {
      const [field, expr] = (script.get("derive") ?? "").split(/=(.*)/s);
      answer = field && expr ? derivationEvolution(prompt, field, expr) : {};
    } else {
      const spec = mockSpec(modelIdOf(prompt) ?? "generated", /Include a "viewDefinition"/.test(prompt));
      const broken = script.has("invalid") || (script.has("repair") && first);
      answer = broken ? { ...spec, derivations: [{ path: "$.doubled", expr: "value *" }] } : spec;
    }
    return { text: JSON.stringify(answer), finishReason: "stop", toolCalls };
  }
}
