/**
 * Preflights: bounded checks, run once by tests/run_all.ts before `deno test`
 * starts, of what a test needs from outside this machine (a network download).
 * The runner hands each result to the tests through an environment variable;
 * a test registers with `ignore: true` when its preflight found the thing
 * unavailable, and the runner prints why. Test modules only read the variable
 * at load time: nothing probes the network or spawns a process there.
 *
 * Without the variable (`deno test` run directly) {@link preflightResult}
 * returns `undefined` and the test runs the same check itself, inside the test.
 *
 * @module
 */
import { isRuntimeDownloadFailure } from "../cli/build/compile.ts";

/** What a preflight found. */
export type Availability = { available: true } | { available: false; reason: string };

/** One preflight: the variable it sets, the test it gates, the check. */
export interface Preflight {
  /** Environment variable carrying the result: `available`, or `unavailable: <reason>`. */
  env: string;
  /** The name of the test it gates (for the runner's report). */
  test: string;
  check(): Promise<Availability>;
}

/** Reads a preflight result from the environment; `undefined` when no runner set it. */
export function preflightResult(
  env: string,
  lookup: (name: string) => string | undefined = (name) => Deno.env.get(name),
): Availability | undefined {
  const value = lookup(env);
  if (value === undefined) return undefined;
  if (value === "available") return { available: true };
  return { available: false, reason: value.replace(/^unavailable:\s*/, "") || "unavailable" };
}

/** The environment value of a result. */
export function preflightValue(result: Availability): string {
  return result.available ? "available" : `unavailable: ${result.reason}`;
}

/** The line of `deno compile`'s stderr that says why the runtime download failed. */
export function downloadFailureReason(stderr: string): string {
  const line = stderr.split("\n").find((l) => /error sending request|dns error|connection refused/i.test(l));
  return line?.trim().replace(/^\d+:\s*/, "") ?? "no network";
}

// ---------------------------------------------------------------- deno compile

export const COMPILE_ENV = "TEST_PREFLIGHT_DENO_COMPILE";
export const COMPILE_TEST = "deno compile builds a host binary that answers the console";

/**
 * Compiles a one-line program: `deno compile` needs the `denort` runtime, from
 * the Deno cache or downloaded from dl.deno.land. Only a failed (or stalled)
 * download makes it unavailable; any other outcome lets the test run and show
 * what happened.
 */
export async function checkCompileRuntime(timeoutMs = 60_000): Promise<Availability> {
  const dir = await Deno.makeTempDir({ prefix: "svc-preflight-compile-" });
  try {
    await Deno.writeTextFile(`${dir}/main.ts`, "console.log('ok');\n");
    const { stderr, timedOut } = await runBounded(
      ["compile", "--no-config", "--no-check", "--output", `${dir}/main`, `${dir}/main.ts`],
      dir,
      timeoutMs,
    );
    if (isRuntimeDownloadFailure(stderr)) {
      return {
        available: false,
        reason: `deno compile could not download its runtime (${downloadFailureReason(stderr)})`,
      };
    }
    if (timedOut && /dl\.deno\.land/.test(stderr)) {
      return {
        available: false,
        reason: `deno compile's runtime download did not finish within ${timeoutMs / 1000}s`,
      };
    }
    return { available: true };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

// ------------------------------------------------------ MCP conformance suite

/** The pinned official MCP conformance suite. */
export const MCP_SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";
export const MCP_SUITE_ENV = "TEST_PREFLIGHT_MCP_CONFORMANCE";
export const MCP_SUITE_TEST = `MCP conformance suite (${MCP_SUITE}) passes the applicable server scenarios`;

/** Fetches and starts the suite once (`--version`); it runs outside the project's config. */
export async function checkMcpSuite(timeoutMs = 120_000): Promise<Availability> {
  const dir = await Deno.makeTempDir({ prefix: "svc-preflight-mcp-" });
  try {
    const { code, stdout, stderr, timedOut } = await runBounded(
      ["run", "-A", "--no-config", "--no-lock", MCP_SUITE, "--version"],
      dir,
      timeoutMs,
    );
    if (code === 0) return { available: true };
    return {
      available: false,
      reason: timedOut
        ? `the suite was not fetched and started within ${timeoutMs / 1000}s`
        : `the suite could not be fetched or started (exit ${code}): ${(stdout + stderr).trim().slice(-300)}`,
    };
  } catch (err) {
    return { available: false, reason: `the suite could not be started: ${(err as Error).message}` };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Every preflight, in the order the runner reports them. */
export const PREFLIGHTS: readonly Preflight[] = [
  { env: COMPILE_ENV, test: COMPILE_TEST, check: () => checkCompileRuntime() },
  { env: MCP_SUITE_ENV, test: MCP_SUITE_TEST, check: () => checkMcpSuite() },
];

/** Runs `deno <args>` in `cwd`, killed after `timeoutMs`; whatever it printed is kept. */
async function runBounded(
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number; stdout: string; stderr: string; timedOut: boolean }> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // Already ended.
    }
  }, timeoutMs);
  try {
    const [stdout, stderr, { code }] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.status,
    ]);
    return { code, stdout, stderr, timedOut };
  } finally {
    clearTimeout(timer);
  }
}
