import assert from "node:assert/strict";
import { rejectsWith, serviceOf } from "../_test_utils.ts";
import { encodeBase64 } from "./base64.ts";
import type { ModelService } from "../service/service.ts";
import { checkArgs, type Operation, OPERATIONS } from "./catalog.ts";

const SPEC = {
  id: "calc",
  schema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" }, doc: { type: "object" } },
  },
  derivations: [{ path: "$.sum", expr: "a + b" }],
};

const op = (command: string): Operation => {
  const found = OPERATIONS.find((o) => o.command === command);
  assert.ok(found, `no operation ${command}`);
  return found;
};

/** Runs a command like a surface does: arguments checked, then the handler. */
function call(service: ModelService, command: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const operation = op(command);
  checkArgs(operation, args);
  return operation.run(service, args);
}

async function withModel() {
  const { service } = await serviceOf();
  await call(service, "create-model", { spec: SPEC });
  return service;
}

Deno.test("the catalog holds every console command of the spec once", () => {
  const commands = OPERATIONS.map((o) => o.command);
  assert.equal(new Set(commands).size, commands.length, "commands are unique");
  for (
    const required of [
      "list-models",
      "create-model",
      "get-spec",
      "get-info",
      "get-state",
      "get-field",
      "mutate",
      "patch-mutate",
      "get-history",
      "get-schema",
      "explain",
      "snapshot",
      "restore",
      "delete-model",
      "upload-blob",
      "get-blob",
      "get-model-blob",
    ]
  ) {
    assert.ok(commands.includes(required), `missing ${required}`);
  }
  for (const o of OPERATIONS) {
    assert.ok(o.summary.length > 0, `${o.command} has a summary`);
    for (const a of o.args) assert.ok(a.description.length > 0, `${o.command}.${a.name} is described`);
  }
});

Deno.test("checkArgs names a missing required argument and a mistyped one", () => {
  assert.throws(
    () => checkArgs(op("get-field"), { id: "m" }),
    /^ServiceError: Missing required field: 'path'$/,
  );
  assert.throws(() => checkArgs(op("get-field"), { id: "m", path: null }), /Missing required field: 'path'/);
  assert.throws(
    () => checkArgs(op("mutate"), { id: "m", mutations: [] }),
    /Invalid field 'mutations': expected an object/,
  );
  assert.throws(
    () => checkArgs(op("patch-mutate"), { id: "m", patch: {} }),
    /Invalid field 'patch': expected an array/,
  );
  assert.throws(
    () => checkArgs(op("explain"), { id: "m", path: "$.a", limit: 1.5 }),
    /'limit': expected an integer/,
  );
  assert.throws(() => checkArgs(op("get-state"), { id: 5 }), /Invalid field 'id': expected a string/);
  checkArgs(op("get-state"), { id: "m" }); // optional `at` may be absent
  checkArgs(op("list-models"), {});
});

Deno.test("create-model answers {id, status:'created'}; delete-model {deleted:true}", async () => {
  const { service } = await serviceOf();
  assert.deepEqual(await call(service, "create-model", { spec: SPEC }), { id: "calc", status: "created" });
  assert.deepEqual(await call(service, "list-models"), ["calc"]);
  assert.deepEqual(await call(service, "delete-model", { id: "calc" }), { deleted: true });
  assert.deepEqual(await call(service, "list-models"), []);
});

Deno.test("reads: get-spec, get-info, get-state (with at), get-history, get-schema, explain, get-graph", async () => {
  const service = await withModel();
  const result = await call(service, "mutate", { id: "calc", mutations: { "$.a": 1, "$.b": 2 } }) as {
    derivedUpdated: string[];
  };
  assert.deepEqual(result.derivedUpdated, ["$.sum"]);
  assert.equal((await call(service, "get-spec", { id: "calc" }) as { id: string }).id, "calc");
  assert.equal(
    (await call(service, "get-info", { id: "calc" }) as { derivationCount: number }).derivationCount,
    1,
  );
  assert.deepEqual(await call(service, "get-state", { id: "calc" }), { a: 1, b: 2, sum: 3 });
  const [stamp] = await call(service, "get-history", { id: "calc" }) as string[];
  assert.deepEqual(await call(service, "get-state", { id: "calc", at: stamp }), { a: 1, b: 2, sum: 3 });
  assert.deepEqual(await call(service, "get-schema", { id: "calc", path: "$.sum" }), { readOnly: true });
  const traces = await call(service, "explain", { id: "calc", path: "$.sum", limit: 1 }) as {
    result: number;
  }[];
  assert.deepEqual(traces.map((t) => t.result), [3]);
  assert.equal((await call(service, "get-graph", { id: "calc" }) as { modelId: string }).modelId, "calc");
  assert.equal(
    (await call(service, "get-verification", { id: "calc" }) as { state: string }).state,
    "neutral",
  );
});

Deno.test("get-field answers the value, null for a field holding null or absent; an unknown model fails", async () => {
  const service = await withModel();
  await call(service, "mutate", { id: "calc", mutations: { "$.a": 1, "$.b": 2, "$.doc": {} } });
  assert.equal(await call(service, "get-field", { id: "calc", path: "$.sum" }), 3);
  assert.deepEqual(await call(service, "get-field", { id: "calc", path: "$.doc" }), {});
  assert.equal(await call(service, "get-field", { id: "calc", path: "$.missing" }), null);
  await rejectsWith(
    () => call(service, "get-field", { id: "nope", path: "$.a" }),
    "not_found",
    /Model 'nope'/,
  );
  await rejectsWith(() => call(service, "get-field", { id: "calc", path: "$.a[" }), "bad_request");
});

Deno.test("patch-mutate runs a JSON Patch", async () => {
  const service = await withModel();
  await call(service, "patch-mutate", { id: "calc", patch: [{ op: "add", path: "/a", value: 5 }] });
  assert.equal(await call(service, "get-field", { id: "calc", path: "$.a" }), 5);
});

Deno.test("snapshot then restore answers {restored:true}", async () => {
  const service = await withModel();
  await call(service, "mutate", { id: "calc", mutations: { "$.a": 1, "$.b": 1 } });
  const snapshot = await call(service, "snapshot", { id: "calc" });
  await call(service, "mutate", { id: "calc", mutations: { "$.a": 9 } });
  assert.deepEqual(await call(service, "restore", { id: "calc", snapshot }), { restored: true });
  assert.equal(await call(service, "get-field", { id: "calc", path: "$.sum" }), 2);
});

Deno.test("upload-blob answers a BlobRef; get-blob and get-model-blob answer {blobId, mediaType, data} in base64", async () => {
  const service = await withModel();
  const data = encodeBase64(new Uint8Array([0, 1, 2, 250, 255]));
  const ref = await call(service, "upload-blob", { data, mediaType: "application/x-test" }) as Record<
    string,
    unknown
  >;
  assert.deepEqual(Object.keys(ref).sort(), ["$blobId", "$bytes", "$mediaType"]);
  assert.equal(ref.$bytes, 5);
  assert.equal(ref.$mediaType, "application/x-test");
  assert.deepEqual(await call(service, "get-blob", { blobId: ref.$blobId }), {
    blobId: ref.$blobId,
    mediaType: "application/x-test",
    data,
  });
  await rejectsWith(() => call(service, "get-model-blob", { id: "calc", blobId: ref.$blobId }), "not_found");
  await call(service, "mutate", { id: "calc", mutations: { "$.doc": ref } });
  assert.equal(
    (await call(service, "get-model-blob", { id: "calc", blobId: ref.$blobId }) as { data: string }).data,
    data,
  );
  await rejectsWith(
    () => call(service, "upload-blob", { data: "%%%" }),
    "bad_request",
    /'data' is not valid base64/,
  );
});

Deno.test("get-audit and verify-audit", async () => {
  const service = await withModel();
  await call(service, "mutate", { id: "calc", mutations: { "$.a": 1 } });
  await call(service, "mutate", { id: "calc", mutations: { "$.b": 1 } });
  const records = await call(service, "get-audit", { id: "calc", limit: 1 }) as { sequence: number }[];
  assert.deepEqual(records.map((r) => r.sequence), [1]);
  assert.equal((await call(service, "verify-audit", { id: "calc" }) as { valid: boolean }).valid, true);
});
