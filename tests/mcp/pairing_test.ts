/**
 * `svc mcp --url <server> --browser` through the SDK client over stdio, with
 * the person's side played over REST (tests/browser/pairing_test.ts plays it
 * in Chromium): `pair_browser` only in this mode, model tools refused until
 * paired, pending then paired, progress while waiting, cancellation and
 * resumption, URL-mode elicitation (accepted and declined), denial, expiry,
 * two agents in separate sessions, and `resources/updated` for the person's
 * edits (none once the session ended).
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type CallToolResult, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { call, orderSpec, startTestServer, type TestServer } from "../server/helpers.ts";
import { type Connected, connectStdio, textOf } from "./helpers.ts";

type Agent = Awaited<ReturnType<typeof connectStdio>>;

const browserAgent = (server: TestServer, capabilities = {}) =>
  connectStdio(["--url", server.url, "--browser"], {}, capabilities);

/** A tool's structured result (or its failure body). */
async function tool(agent: Connected, name: string, args: Record<string, unknown> = {}) {
  const result = await agent.client.callTool({ name, arguments: args }) as CallToolResult;
  return { isError: result.isError === true, body: textOf(result) as Record<string, unknown> };
}

/** The person approves (or denies) on the server, as the page does. */
async function decide(server: TestServer, userCode: unknown, kind: "approve" | "deny" = "approve") {
  const reply = await call(server.url, "POST", `/pair/${kind}`, { userCode });
  assert.equal(reply.status, 200, reply.text);
  return reply.json;
}

/** Pairs an agent through REST approval; the browser's session of it. */
async function pair(server: TestServer, agent: Agent) {
  const pending = await tool(agent, "pair_browser");
  assert.equal(pending.body.status, "pending");
  const browser = await decide(server, pending.body.userCode);
  const paired = await tool(agent, "pair_browser");
  assert.deepEqual(paired.body, { status: "paired", namespaceId: browser.namespaceId });
  return browser as { sessionToken: string; namespaceId: string };
}

Deno.test("pair_browser is offered only with --browser; model tools wait for the pairing, authoring does not", async () => {
  const server = await startTestServer();
  const agent = await browserAgent(server);
  const remote = await connectStdio(["--url", server.url]);
  try {
    const names = (await agent.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("pair_browser"));
    assert.ok(names.includes("create_model") && names.includes("list_models"));
    const listed = (await agent.client.listTools()).tools.find((t) => t.name === "pair_browser")!;
    assert.equal(listed.annotations?.readOnlyHint, false);
    assert.ok(listed.outputSchema, "pair_browser declares its result");
    assert.ok(!(await remote.client.listTools()).tools.some((t) => t.name === "pair_browser"));

    for (
      const [name, args] of [["list_models", {}], ["create_model", { spec: orderSpec() }], ["get_state", {
        id: "x",
      }]] as const
    ) {
      const refused = await tool(agent, name, args);
      assert.equal(refused.isError, true, name);
      assert.match(String(refused.body.error), /call pair_browser first/);
    }
    assert.equal((await tool(agent, "validate_spec", { spec: orderSpec() })).body.valid, true);
    assert.deepEqual((await tool(agent, "eval_expression", { expr: "1 + 1" })).body, {
      result: 2,
      type: "number",
    });
    const { resources } = await agent.client.listResources();
    assert.ok(resources.some((r) => r.uri === "svc://schema/model-spec"), "fixed resources before pairing");
    await agent.client.setLoggingLevel("info");
    const ready = await agent.waitFor((n) => n.method === "notifications/message", 10_000);
    assert.match(String((ready.params as { data: string }).data), /mode browser/);
  } finally {
    await agent.close();
    await remote.close();
    await server.close();
  }
});

Deno.test("pending at once with the link; waits with progress; paired; already_paired; the session's models", async () => {
  const server = await startTestServer();
  const agent = await browserAgent(server);
  try {
    // Answered at once: pending, while nobody has approved (a call that waited would end paired or expired).
    const pending = await tool(agent, "pair_browser");
    assert.equal(pending.isError, false);
    assert.equal(pending.body.status, "pending");
    const { userCode, verificationUri, verificationUriComplete, expiresInSec } = pending.body;
    assert.equal(verificationUri, `${server.url}/pair`);
    assert.equal(verificationUriComplete, `${server.url}/pair#code=${userCode}`);
    assert.ok(Number(expiresInSec) > 590);

    // The next call waits: progress (with the link) while the person has not approved yet.
    const progress = Promise.withResolvers<{ message?: string }>();
    const waiting = agent.client.callTool(
      { name: "pair_browser", arguments: {} },
      undefined,
      { onprogress: progress.resolve },
    );
    assert.match(String((await progress.promise).message), new RegExp(`userCode=${userCode}`));
    const browser = await decide(server, userCode);
    const paired = textOf(await waiting as CallToolResult);
    assert.deepEqual(paired, { status: "paired", namespaceId: browser.namespaceId });
    assert.deepEqual((await tool(agent, "pair_browser")).body, {
      status: "already_paired",
      namespaceId: browser.namespaceId,
    });

    // The agent's models live in the session: plain ids, namespaced on the server.
    assert.equal((await tool(agent, "create_model", { spec: orderSpec("cart") })).body.id, "cart");
    await tool(agent, "mutate", { id: "cart", mutations: { "$.qty": 2, "$.price": 4 } });
    assert.deepEqual((await tool(agent, "list_models")).body, ["cart"]);
    const everything = (await call(server.url, "GET", "/models")).json;
    assert.deepEqual(everything, [`${browser.namespaceId}/cart`]);
    const state = await call(server.url, "GET", "/models/cart/state", undefined, {
      authorization: `Bearer ${browser.sessionToken}`,
    });
    assert.equal(state.json.total, 8, "the tab's token sees the agent's model");
  } finally {
    await agent.close();
    await server.close();
  }
});

Deno.test("the person's edits reach the agent as resources/updated, and it reads the new value", async () => {
  const server = await startTestServer();
  const agent = await browserAgent(server);
  try {
    const browser = await pair(server, agent);
    await tool(agent, "create_model", { spec: orderSpec("cart") });
    await agent.client.subscribeResource({ uri: "svc://state/cart" });
    const edit = await call(server.url, "POST", "/models/cart/mutations", { "$.qty": 9, "$.price": 2 }, {
      authorization: `Bearer ${browser.sessionToken}`,
    });
    assert.equal(edit.status, 200);
    const updated = await agent.waitFor((n) => n.method === "notifications/resources/updated", 10_000);
    assert.equal((updated.params as { uri: string }).uri, "svc://state/cart");
    const read = await agent.client.readResource({ uri: "svc://state/cart" });
    assert.equal(JSON.parse((read.contents[0] as { text: string }).text).total, 18);
    const { resources } = await agent.client.listResources();
    assert.ok(resources.some((r) => r.uri === "svc://state/cart"));
    assert.ok(!resources.some((r) => r.uri.includes(browser.namespaceId)));
  } finally {
    await agent.close();
    await server.close();
  }
});

Deno.test("an ended session's subscriptions fall silent and its reads are refused; paired anew, they follow the new one", async () => {
  const server = await startTestServer();
  const agent = await browserAgent(server);
  const isUpdate = (n: { method: string }) => n.method === "notifications/resources/updated";
  try {
    const first = await pair(server, agent);
    await tool(agent, "create_model", { spec: orderSpec("cart") });
    await agent.client.subscribeResource({ uri: "svc://state/cart" });
    const tab = { authorization: `Bearer ${first.sessionToken}` };
    assert.equal((await call(server.url, "DELETE", "/pair/session", undefined, tab)).status, 204);
    const stored = `/models/${encodeURIComponent(`${first.namespaceId}/cart`)}/mutations`;
    assert.equal((await call(server.url, "POST", stored, { "$.qty": 1 })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(agent.notifications.filter(isUpdate).length, 0, "no update after the end");
    await assert.rejects(agent.client.readResource({ uri: "svc://state/cart" }), /ended pairing session/);
    await assert.rejects(
      agent.client.subscribeResource({ uri: "svc://state/cart" }),
      /ended pairing session/,
    );

    const second = await pair(server, agent);
    await tool(agent, "create_model", { spec: orderSpec("cart") });
    await agent.client.subscribeResource({ uri: "svc://state/cart" });
    const edit = await call(server.url, "POST", "/models/cart/mutations", { "$.qty": 2 }, {
      authorization: `Bearer ${second.sessionToken}`,
    });
    assert.equal(edit.status, 200, edit.text);
    await agent.waitFor(isUpdate, 10_000);
  } finally {
    await agent.close();
    await server.close();
  }
});

Deno.test("denied: the waiting call fails saying so; the next call starts a new pairing", async () => {
  const server = await startTestServer();
  const agent = await browserAgent(server);
  try {
    const first = await tool(agent, "pair_browser");
    const waiting = tool(agent, "pair_browser");
    await new Promise((resolve) => setTimeout(resolve, 500));
    await decide(server, first.body.userCode, "deny");
    const denied = await waiting;
    assert.equal(denied.isError, true);
    assert.match(String(denied.body.error), /denied the pairing/);
    const next = await tool(agent, "pair_browser");
    assert.equal(next.body.status, "pending");
    assert.notEqual(next.body.userCode, first.body.userCode);
    assert.match(String((await tool(agent, "list_models")).body.error), /call pair_browser first/);
  } finally {
    await agent.close();
    await server.close();
  }
});

Deno.test("expiry: a call waiting when the link expires says so; the approve page then answers 410", async () => {
  const server = await startTestServer({ "svc.pairing.expires-in-seconds": "2" });
  const agent = await browserAgent(server);
  try {
    const first = await tool(agent, "pair_browser");
    assert.ok(Number(first.body.expiresInSec) <= 2);
    const expired = await tool(agent, "pair_browser");
    assert.equal(expired.isError, true);
    assert.match(String(expired.body.error), /expired before anyone approved it/);
    const late = await call(server.url, "POST", "/pair/approve", { userCode: first.body.userCode });
    assert.equal(late.status, 410);
    const next = await tool(agent, "pair_browser");
    assert.equal(next.body.status, "pending");
    assert.notEqual(next.body.userCode, first.body.userCode);
  } finally {
    await agent.close();
    await server.close();
  }
});

Deno.test("notifications/cancelled stops the wait; the next call resumes the same pairing", async () => {
  const server = await startTestServer({ "svc.http.access-log": "true" });
  const agent = await browserAgent(server);
  try {
    const first = await tool(agent, "pair_browser");
    const abort = new AbortController();
    const progress = Promise.withResolvers<unknown>();
    const waiting = agent.client.callTool(
      { name: "pair_browser", arguments: {} },
      undefined,
      { signal: abort.signal, onprogress: progress.resolve },
    );
    await progress.promise;
    abort.abort();
    await assert.rejects(waiting);
    const polls = () => server.logs.filter((line) => line.includes("/pair/token")).length;
    const before = polls();
    await new Promise((resolve) => setTimeout(resolve, 4000));
    assert.equal(polls(), before, "no more polls after the cancellation");
    const resumed = agent.client.callTool({ name: "pair_browser", arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const browser = await decide(server, first.body.userCode);
    assert.deepEqual(textOf(await resumed as CallToolResult), {
      status: "paired",
      namespaceId: browser.namespaceId,
    });
  } finally {
    await agent.close();
    await server.close();
  }
});

Deno.test("URL-mode elicitation: the link goes to the client, one call ends paired, then elicitation/complete", async () => {
  const server = await startTestServer();
  const agent = await browserAgent(server, { elicitation: { url: {} } });
  try {
    const asked: Record<string, unknown>[] = [];
    agent.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as Record<string, unknown>;
      asked.push(params);
      // The person opens the link and approves, then the client answers.
      const code = new URL(String(params.url)).hash.replace("#code=", "");
      await decide(server, code);
      return { action: "accept" };
    });
    const paired = await tool(agent, "pair_browser");
    assert.equal(paired.body.status, "paired");
    assert.equal(asked.length, 1);
    assert.equal(asked[0].mode, "url");
    assert.match(String(asked[0].url), new RegExp(`^${server.url}/pair#code=[A-Z]{4}-[A-Z]{4}$`));
    assert.match(String(asked[0].message), /check that the page shows the code [A-Z]{4}-[A-Z]{4}/);
    const complete = await agent.waitFor((n) => n.method === "notifications/elicitation/complete", 10_000);
    assert.equal((complete.params as { elicitationId: string }).elicitationId, asked[0].elicitationId);
  } finally {
    await agent.close();
    await server.close();
  }
});

Deno.test("URL-mode elicitation declined: pending at once, with the link to show", async () => {
  const server = await startTestServer();
  const agent = await browserAgent(server, { elicitation: { url: {} } });
  try {
    agent.client.setRequestHandler(
      ElicitRequestSchema,
      () => Promise.resolve({ action: "decline" as const }),
    );
    const pending = await tool(agent, "pair_browser");
    assert.equal(pending.body.status, "pending");
    assert.match(String(pending.body.verificationUriComplete), /#code=/);
  } finally {
    await agent.close();
    await server.close();
  }
});

Deno.test("two agents pair into separate sessions and cannot see each other's models", async () => {
  const server = await startTestServer();
  const one = await browserAgent(server);
  const two = await browserAgent(server);
  try {
    const first = await pair(server, one);
    const second = await pair(server, two);
    assert.notEqual(first.namespaceId, second.namespaceId);
    await tool(one, "create_model", { spec: orderSpec("cart") });
    await tool(one, "mutate", { id: "cart", mutations: { "$.qty": 1, "$.price": 1 } });
    assert.deepEqual((await tool(two, "list_models")).body, []);
    const missing = await tool(two, "get_state", { id: "cart" });
    assert.equal(missing.isError, true);
    assert.match(String(missing.body.error), /not found/);
    const escape = await tool(two, "get_state", { id: `${first.namespaceId}/cart` });
    assert.equal(escape.isError, true);
    assert.match(String(escape.body.error), /outside this pairing session/);
    // As resources, another session's models are unknown, as a missing one is (-32002), not an internal error.
    for (const uri of [`svc://state/${first.namespaceId}/cart`, "svc://state/nowhere"]) {
      await assert.rejects(two.client.readResource({ uri }), { code: -32002 });
      await assert.rejects(two.client.subscribeResource({ uri }), { code: -32002 });
    }
    // The same plain id does not collide across sessions.
    assert.equal((await tool(two, "create_model", { spec: orderSpec("cart") })).isError, false);
    assert.equal((await tool(two, "get_state", { id: "cart" })).body.total, undefined);
    assert.equal((await tool(one, "get_state", { id: "cart" })).body.total, 1);
  } finally {
    await one.close();
    await two.close();
    await server.close();
  }
});
