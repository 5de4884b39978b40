/**
 * The mock provider's script (`mock:` words in the prompt), through the real
 * generator and its repair loop: a view when one is asked for, a tool call, a
 * repair, an answer that never validates, a delay a cancel cuts short, and an
 * evolution that adds a derivation and its tile.
 */
import assert from "node:assert/strict";
import type { ModelSpec } from "../engine/model/types.ts";
import { localAuthoring } from "../engine/service/authoring.ts";
import type { ProgressEvent } from "../engine/service/generation.ts";
import { ServiceError } from "../engine/errors.ts";
import { llmConfig } from "./config.ts";
import { mockScript, mockSpec } from "./mock.ts";
import { generatorOf } from "./mod.ts";

const generator = generatorOf(llmConfig((key) => key === "svc.llm.mock" ? "true" : undefined))!;
const authoring = localAuthoring();

/** Generates from `description`, returning the result (or the error) and the progress types. */
async function generate(description: string, signal?: AbortSignal) {
  const events: ProgressEvent[] = [];
  const { prompt } = generator.previewGeneration({
    modelId: "calc",
    domainDescription: description,
    includeView: true,
  });
  const outcome = await generator.generate(
    { modelId: "calc", prompt },
    { authoring, signal, progress: (e) => events.push(e) },
  ).catch((err: unknown) => err);
  return { outcome, types: events.map((e) => e.type), events };
}

Deno.test("mock script: words and values are read from the prompt", () => {
  assert.deepEqual(
    [...mockScript('"""\nA calculator mock:delay=50 mock:tool\nmock:derive=tripled=value*3\n"""')],
    [["delay", "50"], ["tool", ""], ["derive", "tripled=value*3"]],
  );
});

Deno.test("mock: the canned spec with the view asked for validates at once; mock:tool reports the call", async () => {
  const { outcome, types, events } = await generate("double a number mock:tool");
  assert.deepEqual((outcome as { spec: unknown }).spec, mockSpec("calc", true));
  assert.deepEqual(types, ["llm_requesting", "tool_calling", "tool_completed", "validating", "test_running"]);
  assert.equal(events[1].tool, "eval_jsonata");
});

Deno.test("mock:repair is refused once, then valid; mock:invalid ends in a 422 with the raw answer", async () => {
  const repaired = await generate("double a number mock:repair");
  assert.equal((repaired.outcome as { valid: boolean }).valid, true);
  assert.deepEqual(repaired.types.slice(0, 5), [
    "llm_requesting",
    "validating",
    "validation_failed",
    "retrying",
    "llm_requesting",
  ]);
  const invalid = await generate("double a number mock:invalid");
  const error = invalid.outcome as ServiceError;
  assert.ok(error instanceof ServiceError && error.kind === "validation_failed");
  const body = error.body as { errors: { location: string }[]; rawResponse: string };
  assert.equal(body.errors[0].location, "derivations[0].expr");
  assert.match(body.rawResponse, /"value \*"/);
  assert.equal(invalid.types.filter((t) => t === "llm_requesting").length, 7, "1 + max-retries attempts");
});

Deno.test("mock:delay waits before answering, and a cancel ends the wait", async () => {
  const abort = new AbortController();
  const run = generate("double a number mock:delay=10000", abort.signal);
  // A timer due right after the cancel: a wait that outlived the cancel would let it fire first.
  let late = false;
  setTimeout(() => {
    abort.abort(new DOMException("gone", "AbortError"));
    setTimeout(() => late = true, 0);
  }, 50);
  const { outcome, types } = await run;
  assert.equal((outcome as Error).name, "AbortError");
  assert.ok(!late, "the cancel ended the wait at once");
  assert.deepEqual(types, ["llm_requesting"]);
});

Deno.test("mock:derive drafts the derivation and its tile in the default view; without it {}, no change: refused", async () => {
  const currentSpec = mockSpec("calc", true) as unknown as ModelSpec;
  const draft = await generator.draftEvolution(
    { currentSpec, description: "show it tripled mock:derive=tripled=value*3", includeView: true },
    { authoring },
  );
  assert.deepEqual(draft, {
    upsertDerivations: [{ path: "$.tripled", expr: "value*3" }],
    upsertComponents: [{
      viewId: "main",
      component: { id: "tripled", type: "statTile", label: "Tripled", bind: "$.tripled" },
    }],
  });
  const noView = await generator.draftEvolution(
    { currentSpec, description: "mock:derive=tripled=value*3", includeView: false },
    { authoring },
  );
  assert.deepEqual(noView, { upsertDerivations: [{ path: "$.tripled", expr: "value*3" }] });
  await assert.rejects(
    generator.draftEvolution({ currentSpec, description: "anything", includeView: true }, { authoring }),
    /no applicable evolution within its attempts: \$: the model proposed no change/,
  );
});
