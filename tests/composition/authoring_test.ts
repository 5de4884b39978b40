/**
 * The authoring tools on a candidate that names another model: a branch is
 * validated, tested and dry-run as creating it would compile it (flattened
 * where the models are: in process, over REST, or inside a pairing session's
 * namespace), and an unresolvable template is a finding, not a failure.
 */
import assert from "node:assert/strict";
import {
  dryRun,
  flattenSpec,
  localInvoker,
  remoteInvoker,
  testSpec,
  validateSpec,
} from "../../engine/operations/mod.ts";
import { localAuthoring } from "../../engine/service/authoring.ts";
import { ModelService } from "../../engine/service/service.ts";
import { NamespacedApi } from "../../server/pairing/namespaced_api.ts";
import { SessionBlobs } from "../../server/pairing/session_blobs.ts";
import { call, startTestServer } from "../server/helpers.ts";
import { baseSpec, branchSpec } from "./helpers.ts";

const branch = () => ({
  ...branchSpec("beta/eu", "acme/base"),
  tests: [{ description: "gross at 22 %", given: { "$.net": 100 }, expect: { "$.gross": 122 } }],
});

Deno.test("embedded: a branch validates, tests and dry-runs over its template; a missing one is a finding", async () => {
  const service = await ModelService.open({});
  try {
    await service.createModel(baseSpec());
    const invoker = localInvoker(service);
    const report = await invoker.invoke(validateSpec, { spec: branch() });
    assert.deepEqual(report.errors, []);
    assert.equal(report.valid, true);
    const run = await invoker.invoke(testSpec, { spec: branch() });
    assert.equal(run.passedCount, 1, JSON.stringify(run));
    const dry = await invoker.invoke(dryRun, { spec: branch(), mutations: { "$.net": 10 } });
    assert.equal((dry.state as { gross: number }).gross, 12.2);

    const flat = await invoker.invoke(flattenSpec, { spec: branch() });
    assert.equal(flat.template, null, "flattened");
    assert.equal((flat.lineage as { ref: string }[])[0].ref, "acme/base");
    assert.deepEqual(await service.listModels(), ["acme/base"], "nothing registered");

    const missing = await invoker.invoke(validateSpec, { spec: branchSpec("beta/eu", "acme/nowhere") });
    assert.equal(missing.valid, false);
    assert.equal(missing.errors[0].location, "template.ref");
    assert.match(missing.errors[0].message, /acme\/nowhere/);
    await assert.rejects(
      invoker.invoke(testSpec, { spec: branchSpec("beta/eu", "acme/nowhere") }),
      /template\.ref/,
    );
  } finally {
    await service.close();
  }
});

Deno.test("remote: POST /models/flatten, and the authoring tools flatten on the server", async () => {
  const server = await startTestServer();
  try {
    assert.equal((await call(server.url, "POST", "/models", baseSpec())).status, 201);
    const flat = await call(server.url, "POST", "/models/flatten", branch());
    assert.equal(flat.status, 200, flat.text);
    assert.equal(flat.json.lineage[0].ref, "acme/base");
    const unknown = await call(server.url, "POST", "/models/flatten", branchSpec("x", "acme/nowhere"));
    assert.equal(unknown.status, 422);
    assert.equal(unknown.json.errors[0].location, "template.ref");

    const invoker = remoteInvoker({
      baseUrl: server.url,
      fetch: (request) => fetch(request),
      authoring: () => Promise.resolve(localAuthoring()),
    });
    assert.equal((await invoker.invoke(validateSpec, { spec: branch() })).valid, true);
    assert.equal((await invoker.invoke(testSpec, { spec: branch() })).passedCount, 1);
  } finally {
    await server.close();
  }
});

Deno.test("a pairing session: templates are read inside its namespace and shown plainly", async () => {
  const service = await ModelService.open({});
  try {
    const session = new NamespacedApi(service, "pair-one", new SessionBlobs());
    await session.createModel(baseSpec(undefined, "base"));
    await service.createModel(baseSpec(undefined, "acme/base"));
    const invoker = localInvoker(() => session, { authoring: service.authoring });
    const flat = await invoker.invoke(flattenSpec, { spec: branchSpec("eu", "base") });
    assert.equal((flat.lineage as { ref: string }[])[0].ref, "base", "shown as the session's name");
    assert.equal((await invoker.invoke(validateSpec, { spec: branchSpec("eu", "base") })).valid, true);
    await assert.rejects(
      invoker.invoke(validateSpec, { spec: branchSpec("eu", "acme/base") }),
      /outside this pairing session/,
    );
  } finally {
    await service.close();
  }
});
