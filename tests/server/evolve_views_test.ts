/**
 * Spec evolution and views over REST on a real server: evolve (200, 400, 404,
 * 409 version conflict, 422), the `spec-evolved` frame, the view reads and the
 * `X-View` header's `viewDelta`.
 */
import assert from "node:assert/strict";
import { call, orderSpec, startTestServer } from "./helpers.ts";

const VIEW_SPEC = {
  ...orderSpec(),
  viewDefinition: {
    defaultView: "main",
    views: [
      {
        id: "main",
        label: "Order",
        components: [
          { id: "qty", type: "numericField", bind: "$.qty" },
          { id: "total", type: "statTile", bind: "$.total" },
          { id: "note", type: "textField", bind: "$.note" },
        ],
      },
      { id: "summary", label: "Summary", components: [{ id: "t", type: "label", bind: "$.total" }] },
    ],
  },
};

Deno.test("spec evolve: new version, 409 with the version-conflict body, 422 with findings, 400, 404", async () => {
  const server = await startTestServer();
  try {
    const base = server.url;
    await call(base, "POST", "/models", orderSpec());
    await call(base, "POST", "/models/order/mutations", { "$.qty": 2, "$.price": 3 });
    const socket = new WebSocket(
      `${server.wsUrl}/models/order/subscribe?paths=${encodeURIComponent("$.note")}`,
    );
    const frame = new Promise<Record<string, unknown>>((resolve) =>
      socket.onmessage = (e) => resolve(JSON.parse(e.data))
    );
    const closed = new Promise((resolve) => socket.onclose = resolve);
    await new Promise((resolve) => socket.onopen = resolve);

    const evolved = await call(base, "POST", "/models/order/spec/evolve", {
      newVersion: "1.1.0",
      expectedVersion: "1.0.0",
      upsertDerivations: [{ path: "$.double", expr: "total * 2" }],
    });
    assert.equal(evolved.status, 200);
    assert.deepEqual(evolved.json, { id: "order", version: "1.1.0" });
    assert.deepEqual(
      await frame,
      { kind: "spec-evolved", modelId: "order", version: "1.1.0" },
      "passes any filter",
    );
    assert.equal((await call(base, "GET", "/models/order/state")).json.double, 12);
    assert.equal((await call(base, "GET", "/models/order")).json.version, "1.1.0");

    const stale = await call(base, "POST", "/models/order/spec/evolve", {
      newVersion: "2.0.0",
      expectedVersion: "1.0.0",
    });
    assert.equal(stale.status, 409);
    assert.equal(stale.headers.get("content-type"), "application/problem+json");
    assert.deepEqual(stale.json, { error: "Version conflict", expected: "1.0.0", actual: "1.1.0" });

    const invalid = await call(base, "POST", "/models/order/spec/evolve", {
      upsertDerivations: [{ path: "$.broken", expr: "(" }],
      newVersion: "not-semver",
    });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.json.error, "Spec validation failed");
    assert.ok(invalid.json.errors.length >= 2, "every finding");

    const stranding = await call(base, "POST", "/models/order/spec/evolve", {
      upsertSchemaNodes: [{ path: "$.qty", schema: { type: "string" } }],
    });
    assert.equal(stranding.status, 422, "state would be stranded");
    assert.match(JSON.stringify(stranding.json), /\$\.qty/);
    await call(base, "POST", "/models/order/spec/evolve", {
      upsertConstants: { rate: 2 },
      upsertDerivations: [{ path: "$.rated", expr: "qty * $const.rate" }],
    });
    const referenced = await call(base, "POST", "/models/order/spec/evolve", { removeConstants: ["rate"] });
    assert.equal(referenced.status, 422, "a constant still referenced");

    assert.equal((await call(base, "POST", "/models/order/spec/evolve", "{x")).status, 400);
    assert.equal((await call(base, "POST", "/models/order/spec/evolve", [])).status, 400);
    assert.equal((await call(base, "POST", "/models/nope/spec/evolve", { newVersion: "2.0.0" })).status, 404);
    assert.equal(
      (await call(base, "GET", "/models/order")).json.version,
      "1.1.0",
      "failed evolutions changed nothing",
    );
    socket.close();
    await closed;
  } finally {
    await server.close();
  }
});

Deno.test("views: default and named views, 404s, and viewDelta with X-View on both write routes", async () => {
  const server = await startTestServer();
  try {
    const base = server.url;
    await call(base, "POST", "/models", VIEW_SPEC);
    await call(base, "POST", "/models", orderSpec("plain"));
    await call(base, "POST", "/models/order/mutations", { "$.qty": 2, "$.price": 3 });

    const main = await call(base, "GET", "/models/order/view");
    assert.equal(main.status, 200);
    assert.equal(main.json.viewId, "main");
    assert.deepEqual(
      main.json.components.map((c: { id: string; value: unknown }) => [c.id, c.value ?? null]),
      [
        ["qty", 2],
        ["total", 6],
        ["note", null],
      ],
    );
    const summary = await call(base, "GET", "/models/order/view/summary");
    assert.equal(summary.json.title, "Summary");
    assert.equal(summary.json.components[0].value, 6);
    assert.equal((await call(base, "GET", "/models/order/view/ghost")).status, 404);
    assert.equal((await call(base, "GET", "/models/plain/view")).status, 404);
    assert.equal((await call(base, "GET", "/models/nope/view")).status, 404);

    const withDelta = await call(base, "POST", "/models/order/mutations", { "$.qty": 5 }, {
      "X-View": "main",
    });
    assert.equal(withDelta.status, 200);
    assert.deepEqual(Object.keys(withDelta.json.viewDelta).sort(), ["qty", "total"]);
    assert.equal(withDelta.json.viewDelta.total.value, 15);
    const patched = await call(
      base,
      "POST",
      "/models/order/mutations/patch",
      [{ op: "add", path: "/note", value: "hi" }],
      { "X-View": "summary" },
    );
    assert.deepEqual(patched.json.viewDelta, {}, "the summary view shows no note");

    const unknownView = await call(base, "POST", "/models/order/mutations", { "$.qty": 9 }, {
      "X-View": "ghost",
    });
    assert.equal(unknownView.status, 404);
    assert.match(unknownView.json.detail, /View 'ghost' not found/);
    const noViews = await call(base, "POST", "/models/plain/mutations", { "$.qty": 9 }, { "X-View": "main" });
    assert.equal(noViews.status, 404);
    assert.equal((await call(base, "GET", "/models/order/state")).json.qty, 5, "nothing was written");
    assert.equal((await call(base, "GET", "/models/plain/state")).json.qty, undefined);
  } finally {
    await server.close();
  }
});
