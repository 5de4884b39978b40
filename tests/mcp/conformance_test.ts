/**
 * The official MCP conformance suite (`npm:@modelcontextprotocol/conformance`,
 * pinned) against the real server's `/mcp`, for the server scenarios that apply
 * to a server without prompts or the suite's fixture tools and `test://`
 * resources. The scenarios left out, and why: CONFORMANCE.md beside this file.
 *
 * The suite runs with `deno run -A` (it needs a newer Node than many hosts
 * have), outside the project's config so it never touches deno.json, the lock
 * file or node_modules. When it cannot be fetched or started here, the test is
 * skipped with the reason printed.
 */
import assert from "node:assert/strict";
import { startTestServer } from "../server/helpers.ts";

const SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";
const SCENARIOS = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "resources-list",
  "dns-rebinding-protection",
];

/** Runs the suite in a scratch directory (it may write result files there). */
async function runSuite(args: string[], timeoutMs: number): Promise<{ code: number; output: string }> {
  const cwd = await Deno.makeTempDir({ prefix: "mcp-conformance-" });
  try {
    return await runIn(cwd, args, timeoutMs);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

async function runIn(
  cwd: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-config", "--no-lock", SUITE, ...args],
    cwd,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(timeoutMs),
  }).output();
  const decoder = new TextDecoder();
  return { code, output: decoder.decode(stdout) + decoder.decode(stderr) };
}

/** Why the suite cannot run here, or `null` when it can. */
async function unavailable(): Promise<string | null> {
  try {
    const { code, output } = await runSuite(["--version"], 120_000);
    return code === 0
      ? null
      : `the suite could not be fetched or started (exit ${code}): ${output.slice(-500)}`;
  } catch (err) {
    return `the suite could not be started: ${(err as Error).message}`;
  }
}

const skipReason = await unavailable();
if (skipReason) console.log(`skipping the MCP conformance suite: ${skipReason}`);

/** A port that was free a moment ago: the DNS rebinding scenario needs the origin before the server starts. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test({
  name: `MCP conformance suite (${SUITE}) passes the applicable server scenarios`,
  ignore: skipReason !== null,
  async fn(t) {
    const port = freePort();
    // Open mode (the suite sends no key); browser origins limited to the server's own.
    const server = await startTestServer({
      "svc.port": String(port),
      "svc.mcp.allowed-origins": `http://127.0.0.1:${port},http://localhost:${port}`,
    });
    try {
      for (const scenario of SCENARIOS) {
        await t.step(scenario, async () => {
          const { output } = await runSuite(
            ["server", "--url", `${server.url}/mcp`, "--scenario", scenario],
            60_000,
          );
          const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output);
          assert.ok(summary, `no result summary:\n${output}`);
          const [passed, total, failed] = summary.slice(1).map(Number);
          assert.equal(failed, 0, output);
          assert.ok(total > 0 && passed === total, output);
        });
      }
    } finally {
      await server.close();
    }
  },
});
