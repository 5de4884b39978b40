/**
 * MCP resources over both transports: listing, reading, templates, the -32002
 * error of an unknown resource, and `notifications/resources/updated` after
 * commits on a subscribed state URI (over HTTP also for commits made through
 * REST by someone else).
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { EXAMPLES, GUIDES } from "../../engine/authoring/mod.ts";
import { MODEL_SPEC_SCHEMA } from "../../engine/model/model_spec_schema.ts";
import { SPEC_EVOLUTION_SCHEMA } from "../../engine/evolve/schema.ts";
import { call, startTestServer } from "../server/helpers.ts";
import { type Connected, connectHttp, connectStdio, orderSpec, textOf } from "./helpers.ts";

const updated = (uri: string) => (n: ServerNotification) =>
  n.method === "notifications/resources/updated" && n.params.uri === uri;

async function rejectsWithCode(promise: Promise<unknown>, code: number): Promise<void> {
  await assert.rejects(promise, (err: Error & { code: number }) => {
    assert.equal(err.code, code, err.message);
    return true;
  });
}

/** Reads a resource's single text content. */
async function readText(connected: Connected, uri: string): Promise<{ mimeType?: string; text: string }> {
  const { contents } = await connected.client.readResource({ uri });
  assert.equal(contents.length, 1);
  const [content] = contents;
  assert.ok("text" in content, `${uri} is text`);
  assert.equal(content.uri, uri);
  return content;
}

async function checkResources(connected: Connected): Promise<void> {
  const { client } = connected;
  const { resources } = await client.listResources();
  const uris = resources.map((r) => r.uri);
  for (const guide of GUIDES) assert.ok(uris.includes(guide.uri), guide.uri);
  assert.ok(uris.includes("svc://schema/model-spec") && uris.includes("svc://schema/spec-evolution"));
  assert.ok(EXAMPLES.length >= 5);
  for (const example of EXAMPLES) assert.ok(uris.includes(`svc://examples/${example.name}`));
  assert.ok(uris.includes("svc://state/order"), "a model's state is listed");
  for (const resource of resources) assert.ok(resource.name && resource.mimeType, resource.uri);

  for (const guide of GUIDES) {
    const { contents } = await client.readResource({ uri: guide.uri });
    assert.deepEqual(contents, [{ uri: guide.uri, mimeType: "text/markdown", text: guide.text }]);
  }
  const schema = await readText(connected, "svc://schema/model-spec");
  assert.equal(schema.mimeType, "application/json");
  assert.deepEqual(JSON.parse(schema.text), MODEL_SPEC_SCHEMA);
  const evolution = await readText(connected, "svc://schema/spec-evolution");
  assert.deepEqual(JSON.parse(evolution.text), SPEC_EVOLUTION_SCHEMA);
  for (const example of EXAMPLES) {
    const spec = JSON.parse((await readText(connected, `svc://examples/${example.name}`)).text);
    const checked = await client.callTool({ name: "validate_spec", arguments: { spec } });
    assert.equal((textOf(checked as never) as { valid: boolean }).valid, true, example.name);
  }
  const state = await readText(connected, "svc://state/order");
  assert.deepEqual(JSON.parse(state.text), { qty: 2, price: 3, total: 6 });

  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), [
    "svc://examples/{name}",
    "svc://state/{modelId}",
  ]);

  for (const uri of ["svc://nope", "svc://state/ghost", "svc://examples/ghost", "svc://state/"]) {
    await rejectsWithCode(client.readResource({ uri }), -32002);
  }
  await rejectsWithCode(client.subscribeResource({ uri: "svc://state/ghost" }), -32002);
}

async function createOrder(connected: Connected): Promise<void> {
  await connected.client.callTool({ name: "create_model", arguments: { spec: orderSpec() } });
  await connected.client.callTool({
    name: "mutate",
    arguments: { id: "order", mutations: { "$.qty": 2, "$.price": 3 } },
  });
}

Deno.test("stdio: resources, templates, -32002, and updates after commits until unsubscribed", async () => {
  const connected = await connectStdio();
  const { client } = connected;
  try {
    await createOrder(connected);
    await checkResources(connected);

    await client.subscribeResource({ uri: "svc://state/order" });
    await client.callTool({ name: "mutate", arguments: { id: "order", mutations: { "$.qty": 5 } } });
    await connected.waitFor(updated("svc://state/order"));
    await client.callTool({
      name: "evolve_spec",
      arguments: { id: "order", evolution: { newVersion: "1.1.0" } },
    });
    assert.equal(connected.notifications.filter(updated("svc://state/order")).length, 2);
    // A restore replaces the state.
    const snapshot = textOf(await client.callTool({ name: "snapshot", arguments: { id: "order" } }) as never);
    await client.callTool({ name: "restore", arguments: { id: "order", snapshot } });
    assert.equal(
      connected.notifications.filter(updated("svc://state/order")).length,
      3,
      "a restore notifies",
    );
    // A rolled-back mutation commits nothing and notifies nobody.
    await client.callTool({ name: "mutate", arguments: { id: "order", mutations: { "$.qty": 500 } } });
    assert.equal(connected.notifications.filter(updated("svc://state/order")).length, 3);

    await client.unsubscribeResource({ uri: "svc://state/order" });
    await client.callTool({ name: "mutate", arguments: { id: "order", mutations: { "$.qty": 6 } } });
    // Over stdio a notification precedes the response of the call that caused it.
    assert.equal(connected.notifications.filter(updated("svc://state/order")).length, 3);
    await client.subscribeResource({ uri: "svc://state/order" });
    await client.callTool({ name: "delete_model", arguments: { id: "order" } });
    assert.equal(connected.notifications.filter(updated("svc://state/order")).length, 4, "deletion notifies");
  } finally {
    await connected.close();
  }
});

Deno.test("HTTP: resources, and updates for commits made through REST by another client", async () => {
  const server = await startTestServer({ "svc.api.key": "k" });
  const auth = { authorization: "Bearer k" };
  const connected = await connectHttp(server.url, auth);
  try {
    await createOrder(connected);
    await checkResources(connected);
    await connected.client.subscribeResource({ uri: "svc://state/order" });
    const rest = await call(server.url, "POST", "/models/order/mutations", { "$.qty": 7 }, auth);
    assert.equal(rest.status, 200);
    await connected.waitFor(updated("svc://state/order"));
    const evolved = await call(
      server.url,
      "POST",
      "/models/order/spec/evolve",
      { newVersion: "2.0.0" },
      auth,
    );
    assert.equal(evolved.status, 200);
    // The second update: any notification once two updates have arrived.
    const updates = () => connected.notifications.filter(updated("svc://state/order")).length;
    await connected.waitFor(() => updates() === 2);
  } finally {
    await connected.close();
    await server.close();
  }
});
