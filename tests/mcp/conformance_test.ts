/**
 * The official MCP conformance suite (`npm:@modelcontextprotocol/conformance`,
 * pinned) against the real server's `/mcp`, for the server scenarios that apply
 * to a server without prompts or the suite's fixture tools and `test://`
 * resources. The scenarios left out, and why: CONFORMANCE.md beside this file.
 *
 * The suite runs with `deno run -A` (it needs a newer Node than many hosts
 * have), outside the project's config so it never touches deno.json, the lock
 * file or node_modules. Whether it can be fetched and started is checked before
 * the tests start by tests/run_all.ts (tests/preflight.ts): when it cannot, the
 * test is ignored and the runner prints why. Run directly with `deno test`, the
 * test checks that itself and stops with the reason printed.
 */
import assert from "node:assert/strict";
import { checkMcpSuite, MCP_SUITE, MCP_SUITE_ENV, MCP_SUITE_TEST, preflightResult } from "../preflight.ts";
import { startTestServer, type TestServer } from "../server/helpers.ts";

const SCENARIOS = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "resources-list",
  "dns-rebinding-protection",
];

/** Set by tests/run_all.ts; only read here, never probed at load time. */
const preflight = preflightResult(MCP_SUITE_ENV);

/** Runs the suite in a scratch directory (it may write result files there). */
async function runSuite(args: string[], timeoutMs: number): Promise<{ code: number; output: string }> {
  const cwd = await Deno.makeTempDir({ prefix: "mcp-conformance-" });
  try {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-config", "--no-lock", MCP_SUITE, ...args],
      cwd,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(timeoutMs),
    }).output();
    const decoder = new TextDecoder();
    return { code, output: decoder.decode(stdout) + decoder.decode(stderr) };
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

/**
 * Open mode with the default configuration (the suite sends no key): no
 * `svc.host` (open mode binds loopback) and no origin list, so the DNS
 * rebinding scenario checks the defaults.
 */
function startWithDefaults(): Promise<TestServer> {
  return startTestServer({}, { defaultHost: true });
}

Deno.test({
  name: MCP_SUITE_TEST,
  ignore: preflight?.available === false,
  async fn(t) {
    if (!preflight) {
      // deno test run directly: no runner checked the suite, so check it here.
      const found = await checkMcpSuite();
      if (!found.available) {
        console.log(`not run: ${found.reason}; deno task test reports this test as ignored`);
        return;
      }
    }
    const server = await startWithDefaults();
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
