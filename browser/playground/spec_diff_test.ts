import assert from "node:assert/strict";
import type { ModelSpec } from "../../engine/mod.ts";
import { describeEvolution, evolutionBetween } from "./spec_diff.ts";

const base = {
  id: "m",
  version: "1.0.0",
  schema: { type: "object" },
  derivations: [{ path: "$.a", expr: "1" }, { path: "$.b", expr: "2" }],
  constraints: [{ id: "c", expr: "true", message: "m", policy: "flag" }],
} as unknown as ModelSpec;

Deno.test("an edited spec becomes targeted upserts and removals, pinned to the version it started from", () => {
  const edited = {
    ...base,
    version: "1.1.0",
    derivations: [{ path: "$.a", expr: "10" }, { path: "$.c", expr: "3" }],
    constants: { k: 1 },
  } as unknown as ModelSpec;
  const evolution = evolutionBetween(base, edited);
  assert.deepEqual(evolution, {
    expectedVersion: "1.0.0",
    newVersion: "1.1.0",
    newConstants: { k: 1 },
    upsertDerivations: [{ path: "$.a", expr: "10" }, { path: "$.c", expr: "3" }],
    removeDerivations: ["$.b"],
  });
  assert.deepEqual(describeEvolution(evolution), [
    "newVersion: 1.1.0",
    "newConstants: replaced",
    "upsertDerivations: $.a, $.c",
    "removeDerivations: $.b",
  ]);
  assert.throws(() => evolutionBetween(base, { ...base, id: "other" }), /id cannot change/);
});
