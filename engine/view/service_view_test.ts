import assert from "node:assert/strict";
import type { ServiceError } from "../errors.ts";
import { checkInput } from "../operations/input.ts";
import { getView } from "../operations/views.ts";
import { ModelService } from "../service/service.ts";
import { specWithView } from "./test_support.ts";

const SPEC = specWithView([
  { id: "qty", type: "numericField", bind: "$.qty" },
  { id: "total", type: "statTile", bind: "$.total" },
], {
  spec: { derivations: [{ path: "$.total", expr: "qty * 2" }] },
  views: [{ id: "summary", label: "Summary", components: [{ id: "t", type: "label", bind: "$.total" }] }],
});

Deno.test("service: getView evaluates the default or a named view of the current state", async () => {
  const service = await ModelService.open();
  await service.createModel(SPEC);
  await service.mutate("m", { "$.qty": 4 });
  const main = await service.getView("m");
  assert.deepEqual(main.components.map((c) => [c.id, c.value]), [["qty", 4], ["total", 8]]);
  const summary = await service.getView("m", "summary");
  assert.deepEqual([summary.viewId, summary.title, summary.components[0].value], ["summary", "Summary", 8]);
  main.components[0].value = 99;
  assert.equal((await service.getView("m")).components[0].value, 4, "callers get copies");
  await service.close();
});

Deno.test("service: getView refuses unknown models, unknown views and models without views", async () => {
  const service = await ModelService.open();
  await service.createModel(SPEC);
  await service.createModel({ id: "plain", schema: { type: "object" } });
  const notFound = (pattern: RegExp) => (err: ServiceError) =>
    err.kind === "not_found" && pattern.test(err.message);
  await assert.rejects(service.getView("ghost"), notFound(/Model 'ghost' not found/));
  await assert.rejects(service.getView("m", "ghost"), notFound(/View 'ghost' not found in model 'm'/));
  await assert.rejects(
    service.getView("plain"),
    notFound(/^Model 'plain' has no view definition: add views with upsertViews or newViewDefinition$/),
  );
  await service.close();
});

Deno.test("service: create refuses a broken view with 422 and every finding; nothing is registered", async () => {
  const service = await ModelService.open();
  const broken = specWithView([{ id: "a", type: "textField" }, { id: "a", type: "label" }, {
    type: "label",
  }]);
  await assert.rejects(service.createModel(broken), (err: ServiceError) => {
    assert.equal(err.kind, "validation_failed");
    assert.deepEqual((err.body!.errors as { location: string }[]).map((f) => f.location), [
      "viewDefinition.views[0].components[1].id",
      "viewDefinition.views[0].components[2].id",
    ]);
    return true;
  });
  assert.deepEqual(await service.listModels(), []);
  await service.close();
});

Deno.test("service: evolve revalidates the view: a broken one is refused, a valid one is served", async () => {
  const service = await ModelService.open();
  await service.createModel(SPEC);
  const broken = { defaultView: "gone", views: [{ id: "main", components: [{ id: "x" }] }] };
  await assert.rejects(service.evolveSpec("m", { newViewDefinition: broken }), (err: ServiceError) => {
    assert.equal(err.kind, "validation_failed");
    assert.deepEqual((err.body!.errors as { location: string }[]).map((f) => f.location), [
      "viewDefinition.defaultView",
      "viewDefinition.views[0].components[0].type",
    ]);
    return true;
  });
  assert.equal((await service.getView("m")).components.length, 2, "the old view is still served");
  const next = {
    defaultView: "main",
    views: [{ id: "main", components: [{ id: "only", type: "label", bind: "$.qty" }] }],
  };
  await service.evolveSpec("m", { newViewDefinition: next });
  assert.deepEqual((await service.getView("m")).components.map((c) => c.id), ["only"]);
  await service.close();
});

Deno.test("service: viewDelta returns the components a mutation result touched", async () => {
  const service = await ModelService.open();
  await service.createModel(SPEC);
  const result = await service.mutate("m", { "$.qty": 3 });
  const delta = await service.viewDelta("m", "main", result);
  assert.deepEqual(Object.keys(delta).sort(), ["qty", "total"]);
  assert.equal(delta.total.value, 6);
  await assert.rejects(service.viewDelta("m", "ghost", result), { kind: "not_found" });
  await service.close();
});

Deno.test("operation getView: id required, viewId optional", async () => {
  const service = await ModelService.open();
  await service.createModel(SPEC);
  assert.throws(() => checkInput(getView, {}), /Missing required field: 'id'/);
  assert.throws(() => checkInput(getView, { id: "m", viewId: 3 }), /Invalid field 'viewId'/);
  assert.equal((await getView.run(service, { id: "m" })).viewId, "main");
  assert.equal((await getView.run(service, { id: "m", viewId: "summary" })).viewId, "summary");
  await service.close();
});
