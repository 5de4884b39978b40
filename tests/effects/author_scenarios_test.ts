/**
 * Effects as a spec author meets them through the real server, against
 * loopback targets: a text answer, retries spent, a timer, a link between
 * two models, what `explain` and the audit show, and a model deleted or its
 * spec evolved while an attempt is in flight.
 */
import assert from "node:assert/strict";
import { call, startTestServer } from "../server/helpers.ts";
import {
  expiringModel,
  LOOPBACK_EFFECTS,
  rateModel,
  startTarget,
  stateOf,
  until,
  writesTo,
} from "./helpers.ts";

const phaseOf = (s: { io?: { fetch?: { phase: string } } }) => s.io?.fetch?.phase;
/** The phases an effect's own commits wrote, oldest first (`pending` is the firing commit's, not a write of its own). */
const phases = (writes: unknown[]) =>
  writes.map((w) => (w as { phase: string } | null)?.phase ?? null).reverse();

Deno.test("a text answer folds back as its text, once; explain and the audit show the fold-back", async () => {
  const target = startTarget(() => new Response("fine", { headers: { "content-type": "text/plain" } }));
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    const spec = rateModel(target.url, { response: { set: { "$.note": "$response" } } });
    (spec.schema as { properties: Record<string, unknown> }).properties.note = { type: "string" };
    spec.derivations = [{ path: "$.shout", expr: "$uppercase(note)" }];
    await call(server.url, "POST", "/models", spec);
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "eu", "$.enabled": true });
    const state = await until(() => stateOf(server.url, "quote"), (s) => phaseOf(s) === "applied", "applied");
    assert.equal(state.note, "fine");
    assert.deepEqual(await writesTo(server.url, "quote", "$.note"), ["fine"], "folded back once");
    assert.deepEqual(phases(await writesTo(server.url, "quote", "$.io.fetch")), [
      "in_flight",
      "applied",
    ]);
    const explain = async (path: string) =>
      (await call(server.url, "GET", `/models/quote/explain/${encodeURIComponent(path)}`)).json;
    // The fold-back is an ordinary commit: a derivation over the folded field is explained with its value.
    assert.deepEqual((await explain("$.shout")).map((t: { result: unknown }) => t.result), ["FINE"]);
    assert.ok((await explain("$effect:fetch")).some((t: { result: unknown }) => t.result === true));
    const audit = (await call(server.url, "GET", "/models/quote/audit")).json;
    assert.deepEqual(audit.map((r: { source: string }) => r.source), ["foldback", "foldback", "client"]);
    assert.equal((await call(server.url, "GET", "/models/quote/audit/verify")).json.valid, true);
  } finally {
    await server.close();
    await target.close();
  }
});

Deno.test("a 503 every time: tried 1 + retries times, each wait at least the doubled backoff, then failed", async () => {
  const at: number[] = [];
  const target = startTarget(() => {
    at.push(performance.now());
    return new Response("busy", { status: 503 });
  });
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    await call(server.url, "POST", "/models", rateModel(target.url, { policy: { retries: 2, backoff: 40 } }));
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "eu", "$.enabled": true });
    const state = await until(() => stateOf(server.url, "quote"), (s) => phaseOf(s) === "failed", "failed");
    assert.equal(state.io.fetch.error, "http 503: busy");
    assert.equal(state.io.fetch.key, "eu");
    assert.equal(target.hits.length, 3);
    // Lower bounds only: a wait lasts at least its backoff (40 ms, then 80 ms).
    assert.ok(at[1] - at[0] >= 35 && at[2] - at[1] >= 75, `waits ${at[1] - at[0]}, ${at[2] - at[1]}`);
    // Each attempt in flight, each retry's wait in flight too (its error saying so), then failed.
    const writes = await writesTo(server.url, "quote", "$.io.fetch") as { error: string | null }[];
    assert.deepEqual(phases(writes), [
      "in_flight",
      "in_flight",
      "in_flight",
      "in_flight",
      "in_flight",
      "failed",
    ]);
    assert.deepEqual([...writes].reverse().map((w) => w.error?.replace(/ at \S+\)$/, ")") ?? null), [
      null,
      "http 503: busy (retry 1 of 2)",
      null,
      "http 503: busy (retry 2 of 2)",
      null,
      "http 503: busy",
    ]);
    assert.equal(state.rate, undefined);
  } finally {
    await server.close();
    await target.close();
  }
});

Deno.test("a timer fires after afterMs and sets its fields once; its status goes to applied in that commit", async () => {
  const server = await startTestServer();
  try {
    await call(server.url, "POST", "/models", expiringModel("offer", 50));
    await call(server.url, "POST", "/models/offer/mutations", { "$.status": "open" });
    const state = await until(() => stateOf(server.url, "offer"), (s) => s.io?.phase === "applied", "fired");
    assert.equal(state.status, "expired");
    assert.equal(state.n, 1);
    assert.deepEqual(phases(await writesTo(server.url, "offer", "$.io")), ["applied"]);
  } finally {
    await server.close();
  }
});

Deno.test("a link writes into another model and folds its answer back; the same dedupeKey is not sent again", async () => {
  const server = await startTestServer();
  try {
    await call(server.url, "POST", "/models", {
      id: "ledger",
      schema: { type: "object", properties: { lines: { type: "object" } } },
    });
    await call(server.url, "POST", "/models", {
      id: "inv",
      schema: {
        type: "object",
        properties: { amt: { type: "number" }, seen: {}, note: { type: "string" }, io: { type: "object" } },
      },
      effects: [{
        id: "push",
        executor: "server",
        trigger: "amt >= 0",
        dedupeKey: "amt",
        target: { ref: "ledger", path: "$.lines.inv" },
        body: "amt",
        response: { set: { "$.seen": "$response.lines.inv" } },
        statusPath: "$.io.push",
      }],
    });
    await call(server.url, "POST", "/models/inv/mutations", { "$.amt": 5 });
    const state = await until(
      () => stateOf(server.url, "inv"),
      (s) => s.io?.push?.phase === "applied",
      "linked",
    );
    assert.equal(state.seen, 5);
    assert.equal((await stateOf(server.url, "ledger")).lines.inv, 5);
    await call(server.url, "POST", "/models/inv/mutations", { "$.note": "same amt" });
    await call(server.url, "POST", "/models/inv/mutations", { "$.amt": 7 });
    await until(
      () => stateOf(server.url, "inv"),
      (s) => s.seen === 7 && s.io.push.phase === "applied",
      "again",
    );
    assert.deepEqual(await writesTo(server.url, "ledger", "$.lines.inv"), [7, 5], "one write per key");
  } finally {
    await server.close();
  }
});

/** A target holding every answer until `release()`. */
function heldTarget() {
  const gate = Promise.withResolvers<void>();
  const answered = Promise.withResolvers<void>();
  const target = startTarget(async () => {
    await gate.promise;
    answered.resolve();
    return Response.json({ rate: 4 });
  });
  return { target, release: () => gate.resolve(), answered: answered.promise };
}

Deno.test("a model deleted while its effect is in flight: the answer lands nowhere, not in a model made anew", async () => {
  const { target, release, answered } = heldTarget();
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    await call(server.url, "POST", "/models", rateModel(target.url));
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "eu", "$.enabled": true });
    await until(() => Promise.resolve(target.hits.length), (n) => n === 1, "in flight");
    assert.equal((await call(server.url, "DELETE", "/models/quote")).status, 204);
    assert.equal((await call(server.url, "POST", "/models", rateModel(target.url))).status, 201);
    release();
    await answered;
    // The new model's own first write goes after anything the old job could have done.
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "us" });
    const state = await stateOf(server.url, "quote");
    assert.equal(state.rate, undefined);
    assert.equal(state.io, undefined);
    assert.deepEqual(await writesTo(server.url, "quote", "$.rate"), []);
  } finally {
    release();
    await server.close();
    await target.close();
  }
});

Deno.test("an effect removed by an evolution while in flight is cancelled; its answer is not applied", async () => {
  const { target, release, answered } = heldTarget();
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    await call(server.url, "POST", "/models", rateModel(target.url));
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "eu", "$.enabled": true });
    await until(() => Promise.resolve(target.hits.length), (n) => n === 1, "in flight");
    const evolved = await call(server.url, "POST", "/models/quote/spec/evolve", { removeEffects: ["fetch"] });
    assert.equal(evolved.status, 200, JSON.stringify(evolved.json));
    const state = await until(
      () => stateOf(server.url, "quote"),
      (s) => phaseOf(s) === "cancelled",
      "cancelled",
    );
    assert.deepEqual(state.io.fetch.key, null);
    release();
    await answered;
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "us" });
    assert.equal((await stateOf(server.url, "quote")).rate, undefined);
    assert.deepEqual(await writesTo(server.url, "quote", "$.rate"), []);
  } finally {
    release();
    await server.close();
    await target.close();
  }
});
