/**
 * The tool checks both transports run: the `tools/list` shape, and every
 * tool's happy path and failure path, each structured result validated
 * against the tool's declared output schema.
 *
 * @module
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { GUIDANCE_TOPIC_IDS } from "../../engine/authoring/mod.ts";
import { MODEL_SPEC_SCHEMA } from "../../engine/model/model_spec_schema.ts";
import { SPEC_EVOLUTION_SCHEMA } from "../../engine/evolve/schema.ts";
import { LIBRARY_EXPORTS, librarySpec } from "../server/helpers.ts";
import { type Connected, orderSpec, schemaErrors, textOf } from "./helpers.ts";

/** The spec's tool table without `pair_browser` (not advertised in these modes). */
export const EXPECTED_TOOLS = [
  "list_models",
  "create_model",
  "get_model_info",
  "get_spec",
  "get_library",
  "get_state",
  "get_field",
  "get_effective_schema",
  "mutate",
  "patch_model",
  "explain",
  "get_history",
  "get_audit",
  "verify_audit",
  "snapshot",
  "restore",
  "evolve_spec",
  "delete_model",
  "get_view",
  "upload_blob",
  "download_blob",
  "get_domain_guidance",
  "validate_spec",
  "eval_expression",
  "test_spec",
  "dry_run",
  "get_lineage",
  "get_pending_effects",
  "approve_effect",
  "promote_model",
  "get_composition_graph",
];
const WITHOUT_OUTPUT_SCHEMA = [
  "list_models",
  "get_history",
  "explain",
  "get_field",
  "get_audit",
  "get_lineage",
  "get_pending_effects",
];
const READ_ONLY = [
  "list_models",
  "get_model_info",
  "get_spec",
  "get_library",
  "get_state",
  "get_field",
  "get_effective_schema",
  "explain",
  "get_history",
  "get_audit",
  "verify_audit",
  "get_view",
  "download_blob",
  "get_lineage",
  "get_pending_effects",
  "get_composition_graph",
];

/** Where the suite runs: the server's own `/mcp` also offers `pair_browser` (tests/server/hosted_pairing_test.ts). */
export interface SuiteHost {
  hosted?: boolean;
}

/** Checks the listing; returns the tools by name. */
export async function checkToolList(connected: Connected, host: SuiteHost = {}): Promise<Map<string, Tool>> {
  const { tools } = await connected.client.listTools();
  const expected = host.hosted ? [...EXPECTED_TOOLS, "pair_browser"] : EXPECTED_TOOLS;
  assert.deepEqual(tools.map((t) => t.name).sort(), [...expected].sort());
  for (const tool of tools) {
    assert.ok(tool.title, `${tool.name} has a title`);
    assert.ok(tool.description, `${tool.name} has a description`);
    const a = tool.annotations!;
    assert.equal(a.openWorldHint, false, tool.name);
    assert.equal(typeof a.idempotentHint, "boolean", tool.name);
    assert.equal(a.destructiveHint, ["delete_model", "evolve_spec"].includes(tool.name), tool.name);
    if (READ_ONLY.includes(tool.name)) assert.equal(a.readOnlyHint, true, tool.name);
    if (
      ["create_model", "mutate", "patch_model", "restore", "evolve_spec", "delete_model"].includes(tool.name)
    ) {
      assert.equal(a.readOnlyHint, false, tool.name);
    }
    assert.equal(tool.inputSchema.type, "object");
    assert.equal(Boolean(tool.outputSchema), !WITHOUT_OUTPUT_SCHEMA.includes(tool.name), tool.name);
    if (tool.outputSchema) assert.equal(tool.outputSchema.type, "object");
    // Every input schema is a usable JSON Schema.
    schemaErrors(tool.inputSchema, {});
  }
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of ["create_model", "validate_spec", "test_spec", "dry_run"]) {
    assert.deepEqual(byName.get(name)!.inputSchema.properties!.spec, MODEL_SPEC_SCHEMA, name);
  }
  assert.deepEqual(byName.get("evolve_spec")!.inputSchema.properties!.evolution, SPEC_EVOLUTION_SCHEMA);
  assert.deepEqual(
    (byName.get("get_domain_guidance")!.inputSchema.properties!.topics as { items: { enum: string[] } }).items
      .enum,
    GUIDANCE_TOPIC_IDS,
  );
  return byName;
}

/** A tool caller that checks every result's shape against the listing. */
export function toolCaller(connected: Connected, tools: Map<string, Tool>) {
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await connected.client.callTool({ name, arguments: args }) as CallToolResult;
    const value = textOf(result);
    const tool = tools.get(name)!;
    if (result.structuredContent !== undefined) assert.deepEqual(result.structuredContent, value);
    if (tool.outputSchema) {
      assert.ok(result.structuredContent, `${name} returns structuredContent`);
      assert.deepEqual(schemaErrors(tool.outputSchema, result.structuredContent), [], name);
    }
    return { result, value };
  };
  return {
    /** Calls a tool that must succeed; returns the parsed value. */
    ok: async (name: string, args: Record<string, unknown> = {}) => {
      const { result, value } = await call(name, args);
      assert.equal(result.isError, false, `${name} failed: ${JSON.stringify(value)}`);
      const object = value !== null && typeof value === "object" && !Array.isArray(value);
      assert.equal(result.structuredContent !== undefined, object, `${name}: structuredContent iff object`);
      return value as Record<string, unknown> & unknown[];
    },
    /** Calls a tool that must fail with a tool-level error; returns the failure body. */
    fails: async (name: string, args: Record<string, unknown> = {}) => {
      const { result, value } = await call(name, args);
      assert.equal(result.isError, true, `${name} should fail: ${JSON.stringify(value)}`);
      assert.deepEqual(result.structuredContent, value);
      assert.equal(typeof (value as { error: unknown }).error, "string");
      return value as Record<string, unknown> & { error: string };
    },
  };
}

/** Every tool's happy and failure path, in one model's life. */
export async function checkEveryTool(
  t: Deno.TestContext,
  connected: Connected,
  host: SuiteHost = {},
): Promise<void> {
  const tools = await checkToolList(connected, host);
  const { ok, fails } = toolCaller(connected, tools);
  const spec = orderSpec();

  await t.step("list_models", async () => {
    assert.deepEqual(await ok("list_models"), []);
    assert.match((await fails("list_models", { bogus: 1 })).error, /Unknown argument 'bogus'/);
  });
  await t.step("create_model", async () => {
    assert.deepEqual(await ok("create_model", { spec }), {
      id: "order",
      version: "1.0.0",
      derivationCount: 1,
      metaDerivationCount: 0,
      constraintCount: 2,
      effectCount: 1,
    });
    assert.match((await fails("create_model", { spec })).error, /already exists/);
    const invalid = await fails("create_model", {
      spec: { id: "bad", derivations: [{ path: "$.a", expr: "1 +" }] },
    });
    assert.equal(invalid.error, "Spec validation failed");
    assert.ok(Array.isArray(invalid.errors));
    assert.match((await fails("create_model", {})).error, /Missing required field: 'spec'/);
  });
  await t.step("get_model_info and get_spec", async () => {
    assert.equal((await ok("get_model_info", { id: "order" })).derivationCount, 1);
    assert.match((await fails("get_model_info", { id: "nope" })).error, /nope/);
    assert.equal((await ok("get_spec", { id: "order" })).id, "order");
    assert.match((await fails("get_spec", { id: "nope" })).error, /nope/);
  });
  await t.step("get_library", async () => {
    await ok("create_model", { spec: librarySpec() });
    const library = await ok("get_library", { id: "priced" });
    assert.deepEqual(library.exports, LIBRARY_EXPORTS);
    assert.deepEqual((library.layers as { origin: string }[]).map((l) => l.origin), ["local"]);
    assert.match((await fails("get_library", { id: "order" })).error, /Model 'order' has no library/);
    await ok("delete_model", { id: "priced" });
  });
  await t.step("mutate", async () => {
    const result = await ok("mutate", { id: "order", mutations: { "$.qty": 2, "$.price": 3 } });
    assert.deepEqual(result.mutatedPaths, ["$.qty", "$.price"]);
    assert.ok((result.derivedUpdated as string[]).includes("$.total"));
    assert.deepEqual(result.metaUpdated, []);
    assert.equal("traces" in result, false);
    const traced = await ok("mutate", { id: "order", mutations: { "$.qty": 3 }, includeTraces: true });
    assert.ok((traced.traces as unknown[]).length > 0);
    const flagged = await ok("mutate", { id: "order", mutations: { "$.qty": 60, "$.price": 10 } });
    assert.deepEqual(flagged.flaggedConstraints, [
      { constraintId: "big-order", message: "large order", policy: "flag" },
    ]);
    assert.deepEqual(flagged.dispatchedEffects, [{ effectId: "notify", emit: "'big'", payload: { n: 60 } }]);
    assert.deepEqual(await fails("mutate", { id: "order", mutations: { "$.qty": 101 } }), {
      error: "Constraint violation",
      violations: [{ constraintId: "max-qty", message: "qty must not exceed 100", policy: "rollback" }],
    });
    const schema = await fails("mutate", { id: "order", mutations: { "$.qty": -1 } });
    assert.equal(schema.error, "Schema violation");
    assert.deepEqual(
      (schema.violations as { path: string; keyword: string }[]).map((v) => [v.path, v.keyword]),
      [["$.qty", "minimum"]],
    );
    assert.match((await fails("mutate", { id: "order", mutations: [1] })).error, /expected object/);
    await ok("mutate", { id: "order", mutations: { "$.qty": 2, "$.price": 3 } });
  });
  await t.step("patch_model", async () => {
    const patched = await ok("patch_model", {
      id: "order",
      patch: [{ op: "add", path: "/items", value: [] }, { op: "add", path: "/items/-", value: { sku: "a" } }],
    });
    assert.equal(patched.success, true);
    const schema = await fails("patch_model", {
      id: "order",
      patch: [{ op: "replace", path: "/qty", value: "x" }],
    });
    assert.equal(schema.error, "Schema violation");
  });
  await t.step("get_state with paths and depth", async () => {
    assert.deepEqual(await ok("get_state", { id: "order" }), {
      qty: 2,
      price: 3,
      total: 6,
      items: [{ sku: "a" }],
    });
    assert.deepEqual(
      await ok("get_state", { id: "order", paths: ["$.total", "$.items[0].sku", "$.absent"] }),
      {
        total: 6,
        items: [{ sku: "a" }],
      },
    );
    assert.deepEqual(await ok("get_state", { id: "order", depth: 0 }), {
      qty: 2,
      price: 3,
      total: 6,
      items: "<array with 1 item>",
    });
    assert.deepEqual(await ok("get_state", { id: "order", paths: ["$.items"], depth: 1 }), {
      items: ["<object with 1 field>"],
    });
    assert.match((await fails("get_state", { id: "order", depth: -1 })).error, /at least 0/);
    assert.match((await fails("get_state", { id: "nope" })).error, /nope/);
    assert.match((await fails("get_state", { id: "order", at: "yesterday" })).error, /at/);
  });
  await t.step("get_field, get_effective_schema, explain, get_history", async () => {
    assert.equal(await ok("get_field", { id: "order", path: "$.total" }), 6);
    assert.equal(await ok("get_field", { id: "order", path: "$.note" }), null);
    assert.deepEqual(await ok("get_field", { id: "order", path: "$.items[0]" }), { sku: "a" });
    assert.match((await fails("get_field", { id: "nope", path: "$.total" })).error, /nope/);
    assert.equal((await ok("get_effective_schema", { id: "order", path: "$.qty" })).minimum, 0);
    assert.match((await fails("get_effective_schema", { id: "nope", path: "$.qty" })).error, /nope/);
    assert.ok((await ok("explain", { id: "order", path: "$.total" })).length > 1);
    assert.equal((await ok("explain", { id: "order", path: "$.total", limit: 1 })).length, 1);
    assert.match((await fails("explain", { id: "nope", path: "$.total" })).error, /nope/);
    const history = await ok("get_history", { id: "order" }) as unknown as string[];
    assert.ok(history.length >= 4 && history.every((h) => !Number.isNaN(Date.parse(h))));
    assert.match((await fails("get_history", { id: "nope" })).error, /nope/);
  });
  await t.step("get_audit and verify_audit", async () => {
    assert.ok(Array.isArray(await ok("get_audit", { id: "order", limit: 2 })));
    assert.match((await fails("get_audit", { id: "nope" })).error, /nope/);
    // pathPrefix reads as get_field's path: unrooted is canonicalised, malformed is refused.
    const rooted = await ok("get_audit", { id: "order", pathPrefix: "$.qty" }) as unknown as unknown[];
    assert.ok(rooted.length > 0);
    assert.deepEqual(await ok("get_audit", { id: "order", pathPrefix: "qty" }), rooted);
    assert.match(
      (await fails("get_audit", { id: "order", pathPrefix: "$[" })).error,
      /'\$\[' is not a valid address/,
    );
    assert.equal((await ok("verify_audit", { id: "order" })).valid, true);
    assert.match((await fails("verify_audit", { id: "nope" })).error, /nope/);
  });
  await t.step("snapshot and restore", async () => {
    const snapshot = await ok("snapshot", { id: "order" });
    assert.equal(snapshot.modelId, "order");
    await ok("mutate", { id: "order", mutations: { "$.qty": 9 } });
    assert.deepEqual(await ok("restore", { id: "order", snapshot }), { restored: true });
    assert.equal(await ok("get_field", { id: "order", path: "$.qty" }), 2);
    assert.match((await fails("snapshot", { id: "nope" })).error, /nope/);
    await fails("restore", { id: "order", snapshot: { bogus: true } });
  });
  await t.step("evolve_spec", async () => {
    assert.deepEqual(
      await ok("evolve_spec", { id: "order", evolution: { newVersion: "1.1.0", expectedVersion: "1.0.0" } }),
      { id: "order", version: "1.1.0" },
    );
    assert.deepEqual(
      await fails("evolve_spec", {
        id: "order",
        evolution: { newVersion: "1.2.0", expectedVersion: "1.0.0" },
      }),
      { error: "Version conflict", expected: "1.0.0", actual: "1.1.0" },
    );
  });
  await t.step("get_view", async () => {
    const view = await ok("get_view", { id: "order" });
    assert.equal(view.viewId, "main");
    assert.match((await fails("get_view", { id: "order", viewId: "nope" })).error, /nope/);
  });
  await t.step("upload_blob and download_blob", async () => {
    const ref = await ok("upload_blob", { data: btoa("hello"), mediaType: "text/plain" });
    assert.equal(ref.$bytes, 5);
    assert.match((await fails("upload_blob", { data: "!!!" })).error, /base64/);
    const blob = await ok("download_blob", { blobId: ref.$blobId });
    assert.deepEqual(blob, { blobId: ref.$blobId, mediaType: "text/plain", data: btoa("hello") });
    // Through a model, only while its state references the blob.
    await fails("download_blob", { blobId: ref.$blobId, modelId: "order" });
    await fails("download_blob", { blobId: "0".repeat(64) });
  });
  await t.step("get_domain_guidance", async () => {
    const [first, second] = GUIDANCE_TOPIC_IDS;
    const result = await ok("get_domain_guidance", { topics: [second, first] });
    assert.deepEqual((result.topics as { id: string }[]).map((x) => x.id), [second, first]);
    assert.match((await fails("get_domain_guidance", { topics: ["astrology"] })).error, /astrology/);
  });
  await t.step("validate_spec", async () => {
    assert.deepEqual(await ok("validate_spec", { spec }), { valid: true, errors: [], warnings: [] });
    const invalid = await ok("validate_spec", {
      spec: { id: "x", derivations: [{ path: "$.a", expr: "1 +" }] },
    });
    assert.equal(invalid.valid, false);
    assert.ok(
      (invalid.errors as { location: string }[]).some((e) => e.location.startsWith("derivations[0]")),
    );
    assert.match((await fails("validate_spec", {})).error, /Missing required field: 'spec'/);
  });
  await t.step("eval_expression", async () => {
    assert.deepEqual(await ok("eval_expression", { expr: "a + 1", input: { a: 2 } }), {
      result: 3,
      type: "number",
    });
    assert.deepEqual(await ok("eval_expression", { expr: "missing" }), { result: null, type: "undefined" });
    assert.deepEqual(
      await ok("eval_expression", { expr: "$const.rate * 2", constants: { rate: 0.5 } }),
      { result: 1, type: "number" },
    );
    const compile = await fails("eval_expression", { expr: "1 +" });
    assert.equal(typeof compile.code, "string");
    assert.equal(typeof compile.position, "number");
    assert.match((await fails("eval_expression", { expr: "$undefinedFn()" })).error, /function/i);
  });
  await t.step("test_spec", async () => {
    const passed = await ok("test_spec", { spec });
    assert.equal(passed.passed, true);
    assert.equal(passed.total, 1);
    const adHoc = await ok("test_spec", {
      spec,
      tests: [{ description: "wrong", given: { "$.qty": 2, "$.price": 3 }, expect: { "$.total": 7 } }],
    });
    assert.equal(adHoc.passed, false);
    assert.deepEqual(
      (adHoc.cases as { failures: { path: string }[] }[])[0].failures.map((f) => f.path),
      ["$.total"],
    );
    assert.equal(
      (await fails("test_spec", { spec: { id: "bad", schema: 5 } })).error,
      "Spec validation failed",
    );
  });
  await t.step("dry_run", async () => {
    const dry = { ...spec, id: "dry" };
    const result = await ok("dry_run", {
      spec: dry,
      mutations: [{ "$.qty": 2, "$.price": 3 }, { "$.qty": 4 }],
    });
    assert.equal((result.state as { total: number }).total, 12);
    assert.equal((result.steps as unknown[]).length, 2);
    assert.equal(
      ((await ok("dry_run", { spec: dry, mutations: { "$.qty": 1, "$.price": 1 } })).state as {
        total: number;
      }).total,
      1,
    );
    const rolledBack = await fails("dry_run", { spec: dry, mutations: [{ "$.qty": 1 }, { "$.qty": 101 }] });
    assert.equal(rolledBack.error, "Constraint violation");
    assert.equal(rolledBack.step, 1);
    assert.deepEqual(await ok("list_models"), ["order"], "dry_run registers nothing");
  });
  await t.step("composition tools", async () => {
    assert.deepEqual(await ok("get_lineage", { id: "order" }), []);
    assert.match((await fails("get_lineage", { id: "nope" })).error, /nope/);
    assert.deepEqual(await ok("get_pending_effects", { id: "order" }), []);
    assert.match((await fails("get_pending_effects", { id: "nope" })).error, /nope/);
    assert.match((await fails("approve_effect", { id: "order", effectId: "ghost" })).error, /ghost/);
    assert.equal((await fails("promote_model", { id: "order", toRepo: " " })).error, "toRepo is required");
    assert.match(
      (await fails("promote_model", { id: "order", toRepo: "hub" })).error,
      /Unknown repository 'hub'/,
    );
    assert.deepEqual(await ok("get_composition_graph"), {
      nodes: [{ ref: "order", modelClass: "local", running: true }],
      linkEdges: [],
      lineageEdges: [],
    });
  });
  await t.step("result withholding", async () => {
    await ok("mutate", { id: "order", mutations: { "$.note": "x".repeat(60_000) } });
    const withheld = await fails("get_state", { id: "order" });
    assert.equal(withheld.error, "Result too large");
    assert.ok((withheld.resultChars as number) > (withheld.limitChars as number));
    assert.match(withheld.hint as string, /paths/);
    assert.deepEqual(await ok("get_state", { id: "order", paths: ["$.total"] }), { total: 6 });
  });
  await t.step("unknown tool is a JSON-RPC error; pair_browser is served only where offered", async () => {
    for (const name of host.hosted ? ["no_such_tool"] : ["pair_browser", "no_such_tool"]) {
      await assert.rejects(
        connected.client.callTool({ name, arguments: {} }),
        (err: Error & { code: number }) => {
          assert.equal(err.code, -32602);
          return true;
        },
      );
    }
  });
  await t.step("delete_model", async () => {
    assert.deepEqual(await ok("delete_model", { id: "order" }), { deleted: true });
    assert.match((await fails("delete_model", { id: "order" })).error, /order/);
    assert.deepEqual(await ok("list_models"), []);
  });
}
