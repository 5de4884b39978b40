/**
 * AI evolution against a concurrent evolution: the draft is applied only to
 * the spec it was made from, so an evolution made meanwhile (even one that
 * kept the version) makes it a 409, not an overwrite.
 */
import assert from "node:assert/strict";
import { ServiceError } from "../../engine/errors.ts";
import { ModelService } from "../../engine/service/service.ts";
import { llmConfig } from "../../llm/config.ts";
import { generatorOf } from "../../llm/mod.ts";

const mock = () => generatorOf(llmConfig((key) => key === "svc.llm.mock" ? "true" : undefined));
const SPEC = { id: "e", schema: { type: "object", properties: { value: { type: "number", default: 2 } } } };

Deno.test("AI evolution is a 409 when the spec was evolved while it drafted, even at the same version", async () => {
  const service = await ModelService.open({ generator: mock() });
  try {
    await service.createModel(SPEC);
    const ai = service.evolveSpecAi("e", { description: "mock:delay=300 mock:derive=t=value*3" })
      .catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const plain = await service.evolveSpec("e", { upsertDerivations: [{ path: "$.u", expr: "value * 4" }] });
    const err = await ai;
    assert.ok(err instanceof ServiceError, String(err));
    assert.equal(err.kind, "conflict");
    assert.match(err.message, /was evolved while its evolution was being drafted/);
    const spec = await service.getSpec("e");
    assert.equal(spec.version, plain.version);
    assert.deepEqual(spec.derivations?.map((d) => d.path), ["$.u"], "the plain evolution stands");
  } finally {
    await service.close();
  }
});

Deno.test("AI evolution without a concurrent change is applied", async () => {
  const service = await ModelService.open({ generator: mock() });
  try {
    await service.createModel(SPEC);
    const result = await service.evolveSpecAi("e", { description: "mock:derive=t=value*3" });
    assert.deepEqual(result.spec.derivations?.map((d) => d.path), ["$.t"]);
  } finally {
    await service.close();
  }
});
