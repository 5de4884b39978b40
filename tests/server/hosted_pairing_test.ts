/**
 * `pair_browser` on the server's own `/mcp` (SPEC.md: "advertised only in
 * remote-with-browser mode and on the hosted endpoint"): an agent connected
 * with the API key pairs a browser tab, the person approving over REST as the
 * page does; then its model tools act on the pairing's namespace, and its
 * subscriptions hear the person's edits. tests/mcp/pairing_test.ts covers the
 * shared pairing logic (elicitation, denial, expiry) through the CLI.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type CallToolResult, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { type Connected, connectHttp, textOf } from "../mcp/helpers.ts";
import { call, orderSpec, startTestServer } from "./helpers.ts";

const KEY = "hosted-pairing-key";
const AUTH = { authorization: `Bearer ${KEY}` };

async function tool(agent: Connected, name: string, args: Record<string, unknown> = {}) {
  const result = await agent.client.callTool({ name, arguments: args }) as CallToolResult;
  return { isError: result.isError === true, body: textOf(result) as Record<string, unknown> };
}

Deno.test("hosted /mcp: pair_browser is listed; before pairing the key's models, after it the namespace's", async () => {
  const server = await startTestServer({ "svc.api.key": KEY });
  const agent = await connectHttp(server.url, AUTH);
  const other = await connectHttp(server.url, AUTH);
  try {
    const listed = (await agent.client.listTools()).tools.find((t) => t.name === "pair_browser");
    assert.ok(listed, "pair_browser is offered on the hosted endpoint");
    assert.equal((await tool(agent, "create_model", { spec: orderSpec("shared") })).isError, false);

    const pending = await tool(agent, "pair_browser");
    assert.equal(pending.body.status, "pending", JSON.stringify(pending.body));
    assert.match(String(pending.body.userCode), /^[A-Z]{4}-[A-Z]{4}$/);
    assert.equal(pending.body.verificationUri, `${server.url}/pair`, "the link is the server's own page");
    assert.equal(pending.body.verificationUriComplete, `${server.url}/pair#code=${pending.body.userCode}`);
    // Still the key's models while the person has not approved.
    assert.deepEqual((await tool(agent, "list_models")).body, ["shared"]);

    const waiting = tool(agent, "pair_browser");
    // On a server with a key, the page asks the person for it before approving.
    const browser = await call(
      server.url,
      "POST",
      "/pair/approve",
      { userCode: pending.body.userCode },
      AUTH,
    );
    assert.equal(browser.status, 200, browser.text);
    const { namespaceId, sessionToken } = browser.json as { namespaceId: string; sessionToken: string };
    assert.deepEqual((await waiting).body, { status: "paired", namespaceId });
    assert.deepEqual((await tool(agent, "pair_browser")).body, { status: "already_paired", namespaceId });

    // Paired: the agent's calls drive the browser's namespace, and only it.
    assert.deepEqual((await tool(agent, "list_models")).body, []);
    assert.equal((await tool(agent, "create_model", { spec: orderSpec("cart") })).isError, false);
    assert.deepEqual((await tool(agent, "list_models")).body, ["cart"]);
    const reach = await tool(agent, "get_state", { id: "shared" });
    assert.equal(reach.isError, true, "the key's models are out of the session's reach");
    const outside = await tool(agent, "get_state", { id: `${namespaceId}/cart` });
    assert.equal(outside.isError, true);
    assert.match(String(outside.body.error), /outside this pairing session/);
    const tab = { authorization: `Bearer ${sessionToken}` };
    assert.deepEqual((await call(server.url, "GET", "/models", undefined, tab)).json, ["cart"]);
    assert.deepEqual(
      ((await call(server.url, "GET", "/models", undefined, AUTH)).json as string[]).sort(),
      [`${namespaceId}/cart`, "shared"],
    );

    // The person's edit reaches the agent's subscription to the session's model.
    await agent.client.subscribeResource({ uri: "svc://state/cart" });
    const updated = Promise.withResolvers<string>();
    agent.client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n) => updated.resolve(n.params.uri),
    );
    const edit = await call(server.url, "POST", "/models/cart/mutations", { "$.qty": 4 }, tab);
    assert.equal(edit.status, 200, edit.text);
    assert.equal(await updated.promise, "svc://state/cart");
    assert.equal((await tool(agent, "get_field", { id: "cart", path: "$.qty" })).body, 4);

    // A blob the agent uploads over /mcp is the session's: the tab reads it through the model.
    const uploaded = await tool(agent, "upload_blob", { data: btoa("a receipt"), mediaType: "text/plain" });
    assert.equal(uploaded.isError, false, JSON.stringify(uploaded.body));
    const blobId = String(uploaded.body.$blobId);
    assert.equal(
      (await call(server.url, "POST", "/models/cart/mutations", { "$.file": uploaded.body }, tab)).status,
      200,
    );
    const receipt = await call(server.url, "GET", `/models/cart/blobs/${blobId}`, undefined, tab);
    assert.deepEqual([receipt.status, receipt.text], [200, "a receipt"]);

    // Sessions are separate: another agent on the same server is not paired.
    const seenByOther = (await tool(other, "list_models")).body as unknown as string[];
    assert.deepEqual([...seenByOther].sort(), [`${namespaceId}/cart`, "shared"]);

    // The person ends the session: both tokens stop working, and the agent is refused rather than
    // moved back to the key's models behind its back; pair_browser pairs anew.
    assert.equal((await call(server.url, "DELETE", "/pair/session", undefined, tab)).status, 204);
    assert.equal((await call(server.url, "GET", "/pair/session", undefined, tab)).status, 401);
    const refused = await tool(agent, "list_models");
    assert.equal(refused.isError, true);
    assert.match(String(refused.body.error), /pairing of this session ended.*call pair_browser/);
    assert.equal((await tool(agent, "pair_browser")).body.status, "pending");
    assert.deepEqual(
      ((await call(server.url, "GET", "/models", undefined, AUTH)).json as string[]).sort(),
      [`${namespaceId}/cart`, "shared"],
      "the session's models stay on the server",
    );
  } finally {
    await agent.close();
    await other.close();
    await server.close();
  }
});

/** Pairs an agent on the server's `/mcp`, the person approving with the key; the browser's session. */
async function pairHosted(serverUrl: string, agent: Connected) {
  const pending = await tool(agent, "pair_browser");
  const waiting = tool(agent, "pair_browser");
  const approved = await call(serverUrl, "POST", "/pair/approve", { userCode: pending.body.userCode }, AUTH);
  assert.equal(approved.status, 200, approved.text);
  assert.equal((await waiting).body.status, "paired");
  return approved.json as { namespaceId: string; sessionToken: string };
}

const isUpdate = (n: { method: string }) => n.method === "notifications/resources/updated";

Deno.test("hosted /mcp: once the pairing ends, its resource subscriptions fall silent and its requests are refused", async () => {
  const server = await startTestServer({ "svc.api.key": KEY });
  try {
    for (const end of ["session", "operator"] as const) {
      const agent = await connectHttp(server.url, AUTH);
      try {
        const { namespaceId, sessionToken } = await pairHosted(server.url, agent);
        assert.equal((await tool(agent, "create_model", { spec: orderSpec("cart") })).isError, false);
        await agent.client.subscribeResource({ uri: "svc://state/cart" });
        const tab = { authorization: `Bearer ${sessionToken}` };
        assert.equal(
          (await call(server.url, "POST", "/models/cart/mutations", { "$.qty": 1 }, tab)).status,
          200,
        );
        await agent.waitFor(isUpdate);

        const ended = end === "session"
          ? await call(server.url, "DELETE", "/pair/session", undefined, tab)
          : await call(server.url, "DELETE", `/admin/pairings/${namespaceId}`, undefined, AUTH);
        assert.equal(ended.status, 204, end);
        const heard = agent.notifications.filter(isUpdate).length;
        // The session's model lives on under the namespace, and the operator still writes it.
        const write = await call(
          server.url,
          "POST",
          `/models/${encodeURIComponent(`${namespaceId}/cart`)}/mutations`,
          { "$.qty": 2 },
          AUTH,
        );
        assert.equal(write.status, 200, write.text);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(agent.notifications.filter(isUpdate).length, heard, `no update after the end (${end})`);

        for (
          const request of [
            () => agent.client.readResource({ uri: "svc://state/cart" }),
            () => agent.client.subscribeResource({ uri: "svc://state/cart" }),
          ]
        ) await assert.rejects(request, /pairing of this session ended/);
        const refused = await tool(agent, "get_state", { id: "cart" });
        assert.equal(refused.isError, true);
        assert.match(String(refused.body.error), /pairing of this session ended/);

        // Paired anew, subscribing to the same URI follows the new session's model.
        const again = await pairHosted(server.url, agent);
        assert.equal((await tool(agent, "create_model", { spec: orderSpec("cart") })).isError, false);
        await agent.client.subscribeResource({ uri: "svc://state/cart" });
        const edit = await call(server.url, "POST", "/models/cart/mutations", { "$.qty": 3 }, {
          authorization: `Bearer ${again.sessionToken}`,
        });
        assert.equal(edit.status, 200, edit.text);
        await agent.waitFor(() => agent.notifications.filter(isUpdate).length > heard);
      } finally {
        await agent.close();
      }
    }
  } finally {
    await server.close();
  }
});

Deno.test("hosted /mcp: with svc.pairing.enabled=false pair_browser is not offered", async () => {
  const server = await startTestServer({ "svc.api.key": KEY, "svc.pairing.enabled": "false" });
  const agent = await connectHttp(server.url, AUTH);
  try {
    assert.ok(!(await agent.client.listTools()).tools.some((t) => t.name === "pair_browser"));
  } finally {
    await agent.close();
    await server.close();
  }
});
