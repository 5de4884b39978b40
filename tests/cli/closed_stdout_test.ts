/**
 * A CLI whose reader goes away (`svc console | head -1`, an MCP client that
 * closed its end of stdout): the console stops quietly, exit 0, as a pipe's
 * writer does; MCP says so once and drops the answers until stdin ends. No
 * stack trace, no error per answer.
 */
import assert from "node:assert/strict";
import { CLI_MAIN } from "./helpers.ts";

/**
 * Runs `svc <command>`, sends `first`, reads the first chunk of its answers
 * and closes stdout as `head` does, then sends `more` 200 times and closes stdin.
 */
async function closingReader(command: string, first: string[], more: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI_MAIN, command],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "", NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  const encode = (line: string) => new TextEncoder().encode(line + "\n");
  for (const line of first) await writer.write(encode(line));
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  try {
    for (let i = 0; i < 200; i++) await writer.write(encode(more));
    await writer.close();
  } catch {
    // The process ended before reading them all.
  }
  const [status, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
  return { firstAnswer: new TextDecoder().decode(value), code: status.code, stderr };
}

Deno.test("console: a reader that closes stdout ends the console quietly", async () => {
  const line = '{"cmd":"list-models"}';
  const run = await closingReader("console", [line], line);
  assert.match(run.firstAnswer, /^\{"ok":true,"result":\[\]\}/);
  assert.equal(run.stderr, "");
  assert.equal(run.code, 0);
});

Deno.test("mcp: a client that closes stdout is said to be gone once; its answers are dropped", async () => {
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
  });
  const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
  const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  const run = await closingReader("mcp", [initialize, initialized], list);
  assert.match(run.firstAnswer, /"protocolVersion":"2025-06-18"/);
  // Said once, though answers in flight fail together (it was said once per answer in flight); Deno's own
  // line about another process holding node_modules' lock is no line of ours.
  const ours = run.stderr.split("\n").filter((line) =>
    line && !line.startsWith("Blocking waiting for file lock")
  );
  assert.deepEqual(ours, ["mcp: stdout closed: the client is gone; answers are dropped until stdin ends"]);
  assert.equal(run.code, 0);
});
