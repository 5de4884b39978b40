/**
 * An evolution answers with the evolved spec's findings as validate_spec and
 * create do (through the operation every surface runs), each at the member
 * the caller sent.
 */
import assert from "node:assert/strict";
import { localInvoker } from "../operations/invoker.ts";
import { evolveSpec } from "../operations/models.ts";
import { validateSpec } from "../operations/authoring.ts";
import type { ModelSpec } from "../model/types.ts";
import { rejectsWith, serviceOf } from "../_test_utils.ts";
import { applyEvolution } from "./apply.ts";
import { parseEvolution } from "./evolution.ts";

const SPEC: ModelSpec = {
  id: "m",
  version: "1.0.0",
  schema: { type: "object", properties: { a: { type: "number" } } },
};

/** A derivation with a misspelt member: valid, with a typo warning. */
const TYPO = { upsertDerivations: [{ path: "$.b", expr: "a * 2", evalution: "lazy" }], newVersion: "1.1.0" };

Deno.test("an evolution whose spec has a typo answers with the warnings validate_spec gives that spec", async () => {
  const { service } = await serviceOf();
  try {
    await service.createModel(SPEC);
    const invoker = localInvoker(service);
    const expected = await invoker.invoke(validateSpec, { spec: applyEvolution(SPEC, parseEvolution(TYPO)) });
    assert.equal(expected.warnings.length, 1);
    assert.match(expected.warnings[0].message, /'evalution'.*did you mean 'evaluation'/);
    const evolved = await invoker.invoke(evolveSpec, { id: "m", evolution: TYPO });
    assert.deepEqual(evolved, { id: "m", version: "1.1.0", warnings: expected.warnings });
    // A spec without findings answers without `warnings`, as create does.
    assert.deepEqual(await invoker.invoke(evolveSpec, { id: "m", evolution: { newVersion: "1.2.0" } }), {
      id: "m",
      version: "1.2.0",
      warnings: expected.warnings,
    });
    const clean = await invoker.invoke(evolveSpec, {
      id: "m",
      evolution: { upsertDerivations: [{ path: "$.b", expr: "a * 2" }] },
    });
    assert.deepEqual(clean, { id: "m", version: "1.2.0" });
  } finally {
    await service.close();
  }
});

Deno.test("an invalid newVersion is located at newVersion, not at the spec's version", async () => {
  const { service } = await serviceOf();
  try {
    await service.createModel(SPEC);
    const err = await rejectsWith(
      () => localInvoker(service).invoke(evolveSpec, { id: "m", evolution: { newVersion: "two" } }),
      "validation_failed",
    );
    assert.deepEqual(err.body?.errors, [{
      location: "newVersion",
      message: "'two' is not a semantic version (MAJOR.MINOR.PATCH)",
    }]);
  } finally {
    await service.close();
  }
});
