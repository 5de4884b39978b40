/**
 * The default view of every conformance example evaluates without an `error`
 * member anywhere: right after create, and after its first test's `given`.
 * The examples are read from ../shared/conformance (never copied here).
 *
 * @module
 */
import assert from "node:assert/strict";
import { handleConsoleLine } from "../cli/console.ts";
import type { Json, JsonObject } from "../engine/json/value.ts";
import { ModelService } from "../engine/service/service.ts";
import type { EvaluatedComponent, EvaluatedView } from "../engine/view/evaluate.ts";

const EXAMPLES = new URL("../../shared/conformance/examples/", import.meta.url);

const examples = [...Deno.readDirSync(EXAMPLES)]
  .filter((entry) => entry.isFile && entry.name.endsWith(".json"))
  .map((entry) => entry.name)
  .sort();

/** Every evaluated component of a view, nested ones included. */
function flatten(components: EvaluatedComponent[]): EvaluatedComponent[] {
  return components.flatMap((
    c,
  ) => [c, ...flatten(Array.isArray(c.components) ? c.components as EvaluatedComponent[] : [])]);
}

function assertNoErrors(view: EvaluatedView, when: string): void {
  const failing = flatten(view.components).filter((c) => c.error !== undefined);
  assert.deepEqual(failing.map((c) => `${c.id}: ${c.error}`), [], `${view.modelId} ${when}`);
}

Deno.test("the conformance examples are present", () => {
  assert.ok(examples.length >= 10, `found ${examples.length} examples in ${EXAMPLES.pathname}`);
});

for (const name of examples) {
  Deno.test(`views of example ${name}: the default view evaluates without errors, before and after a write`, async () => {
    const spec = JSON.parse(await Deno.readTextFile(new URL(name, EXAMPLES))) as JsonObject;
    const definition = spec.viewDefinition as JsonObject;
    const service = await ModelService.open();
    try {
      const { id } = await service.createModel(spec);
      const initial = await service.getView(id);
      assert.equal(initial.viewId, definition.defaultView);
      assert.ok(initial.components.length > 0);
      assertNoErrors(initial, "after create");

      const given = ((spec.tests as JsonObject[] | undefined)?.[0]?.given ?? {}) as Record<string, Json>;
      const result = await service.mutate(id, given);
      const written = await service.getView(id);
      assertNoErrors(written, "after the first test's given");
      for (const component of flatten(written.components)) {
        if (typeof component.bind === "string" && component.bind in given) {
          assert.deepEqual(component.value, given[component.bind], `${component.id} shows the written value`);
        }
      }
      const delta = await service.viewDelta(id, written.viewId, result);
      for (const [key, component] of Object.entries(delta)) {
        assert.equal(component.id, key);
        assert.equal(component.error, undefined);
      }

      const reply = await handleConsoleLine(service, JSON.stringify({ cmd: "get-view", id }));
      assert.deepEqual(reply.reply, { ok: true, result: written });
    } finally {
      await service.close();
    }
  });
}
