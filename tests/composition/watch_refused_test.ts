/**
 * A watched read-link whose refresh the source model refuses (here its schema)
 * keeps the source's value and records the refusal as the effect's failure in
 * its status document, with a warning; the next refresh the model takes
 * applies again.
 */
import assert from "node:assert/strict";
import { ModelService, webPlatform } from "../../engine/mod.ts";
import { until } from "../effects/helpers.ts";
import { sourceSpec, targetSpec } from "./helpers.ts";

/** `sourceSpec` whose `rate` is at most 100, without the write-link, its read-link's status at `statusPath`. */
function cappedSource(id: string, statusPath?: string): Record<string, unknown> {
  const spec = sourceSpec("fx", id) as { schema: { properties: Record<string, unknown> }; effects: object[] };
  spec.schema.properties.rate = { type: "number", maximum: 100 };
  const { statusPath: _, ...pull } = spec.effects[0] as Record<string, unknown>;
  return { ...spec, effects: [statusPath ? { ...pull, statusPath } : pull] };
}

Deno.test("a watched read-link's refused refresh is the effect's failure, with a warning", async () => {
  const warnings: string[] = [];
  const service = await ModelService.open({
    platform: webPlatform(),
    executors: [],
    observer: { warn: (message) => warnings.push(message) },
  });
  // deno-lint-ignore no-explicit-any
  const state = async (id: string) => (await service.getState(id)) as any;
  try {
    await service.createModel(targetSpec());
    await service.createModel(cappedSource("inv", "$.io.pull"));
    await service.createModel(cappedSource("bare"));
    await service.mutate("fx", { "$.v": 2 });
    for (const id of ["inv", "bare"]) {
      await service.mutate(id, { "$.need": true });
      await until(() => state(id), (s) => s.rate === 4, `${id} pulled`);
    }

    await service.mutate("fx", { "$.v": 60 });
    const refused = await until(
      () => state("inv"),
      (s) => s.io.pull.phase === "failed",
      "the refusal recorded",
    );
    assert.equal(refused.rate, 4, "the source keeps its value");
    assert.match(refused.io.pull.error, /^fold-back refused: .*rate/);
    assert.equal(refused.io.pull.key, true, "the key the link ran for");
    await until(() => Promise.resolve(warnings.length), (n) => n === 2, "a warning per source");
    assert.match(
      warnings.find((w) => w.includes("'inv'"))!,
      /effect 'pull' of model 'inv': watched read fold-back/,
    );
    assert.match(
      warnings.find((w) => w.includes("'bare'"))!,
      /fold-back refused: .*; failure not recorded \(no status document\)/,
    );
    assert.equal((await state("bare")).rate, 4);

    await service.mutate("fx", { "$.v": 10 });
    const applied = await until(() => state("inv"), (s) => s.rate === 20, "the next refresh applied");
    assert.equal(applied.io.pull.phase, "applied");
    assert.equal(applied.io.pull.error, null, "the refusal is cleared");
    await until(() => state("bare"), (s) => s.rate === 20, "the next refresh applied without status");
  } finally {
    await service.close();
  }
});
