/**
 * `svc console --url <server> --browser`: the console's remote-with-browser
 * mode, line by line against the real server: model commands wait for the
 * pairing, `pair-browser` answers pending with the link, then paired once the
 * person approved; the session's models are plain ids. Without `--url`,
 * `--browser` is a usage error; without `--browser`, `pair-browser` says which
 * mode it needs.
 */
import assert from "node:assert/strict";
import { readLines } from "../../mcp/lines.ts";
import { call, orderSpec, startTestServer } from "../server/helpers.ts";
import { CLI_MAIN, runCli } from "./helpers.ts";

/** A console process spoken to one line at a time. */
function interactiveConsole(args: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI_MAIN, "console", ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  const replies = readLines(child.stdout);
  return {
    // deno-lint-ignore no-explicit-any
    async send(line: Record<string, unknown>): Promise<any> {
      await writer.write(new TextEncoder().encode(JSON.stringify(line) + "\n"));
      const { value } = await replies.next();
      return JSON.parse(value!);
    },
    async close(): Promise<number> {
      await writer.close();
      for await (const _ of replies) { /* drain */ }
      return (await child.status).code;
    },
  };
}

Deno.test("console --browser: pair-browser, the person approves, then the session's models", async () => {
  const server = await startTestServer();
  const svc = interactiveConsole(["--url", server.url, "--browser"]);
  try {
    const refused = await svc.send({ cmd: "list-models" });
    assert.equal(refused.ok, false);
    assert.match(refused.error, /call pair_browser first/);
    assert.equal((await svc.send({ cmd: "validate-spec", spec: orderSpec() })).result.valid, true);

    const pending = await svc.send({ cmd: "pair-browser" });
    assert.equal(pending.result.status, "pending");
    assert.equal(pending.result.verificationUri, `${server.url}/pair`);
    const approved = await call(server.url, "POST", "/pair/approve", { userCode: pending.result.userCode });
    assert.deepEqual((await svc.send({ cmd: "pair-browser" })).result, {
      status: "paired",
      namespaceId: approved.json.namespaceId,
    });
    assert.deepEqual((await svc.send({ cmd: "create-model", spec: orderSpec("cart") })).result, {
      id: "cart",
      status: "created",
    });
    assert.deepEqual((await svc.send({ cmd: "list-models" })).result, ["cart"]);
    assert.deepEqual((await call(server.url, "GET", "/models")).json, [`${approved.json.namespaceId}/cart`]);
    assert.equal(await svc.close(), 0);
  } finally {
    await server.close();
  }
});

Deno.test("--browser needs --url; pair-browser needs --browser", async () => {
  const alone = await runCli(["console", "--browser"], { lines: [{ cmd: "list-models" }] });
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /--browser pairs with a server's browser tab: give the server with --url/);
  const embedded = await runCli(["console"], { lines: [{ cmd: "pair-browser" }] });
  assert.deepEqual(embedded.replies, [{
    ok: false,
    error: "pair_browser needs remote-with-browser mode: start with --url <server> --browser",
  }]);
});
