import assert from "node:assert/strict";
import { localAuthoring } from "../service/authoring.ts";
import { dryRun, testSpec } from "./authoring.ts";
import type { LocalContext } from "./operation.ts";

const spec = {
  id: "t",
  schema: { type: "object", properties: { a: { type: "number" } } },
  derivations: [{ path: "$.b", expr: "a * 2" }],
};

Deno.test("test_spec and dry_run stop between cases and steps once the call's signal aborts", async () => {
  const tools = localAuthoring();
  const context: LocalContext = {
    invoke: () => Promise.reject(new Error("not used")),
    authoring: () => Promise.resolve(tools),
  };
  const stopped = new AbortController();
  stopped.abort(new DOMException("cancelled", "AbortError"));
  const tests = [{ given: { "$.a": 1 }, expect: { "$.b": 2 } }];
  await assert.rejects(testSpec.run(context, { spec, tests }, { signal: stopped.signal }), /cancelled/);
  await assert.rejects(
    dryRun.run(context, { spec, mutations: [{ "$.a": 1 }] }, { signal: stopped.signal }),
    /cancelled/,
  );
  // Not aborted: both run to the end.
  const live = new AbortController().signal;
  assert.equal((await testSpec.run(context, { spec, tests }, { signal: live })).passed, true);
  assert.deepEqual((await dryRun.run(context, { spec, mutations: [{ "$.a": 1 }] }, { signal: live })).state, {
    a: 1,
    b: 2,
  });
});
