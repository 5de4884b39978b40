/**
 * Test helpers: the real `svc` CLI as a child process (from the sources or a
 * bundle), fed console lines on stdin, with everything it printed collected.
 *
 * @module
 */
import { CLI_MAIN } from "../server/helpers.ts";

export { CLI_MAIN };

/** What a finished CLI process printed. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The JSON object lines of stdout (console answers), parsed. */
  // deno-lint-ignore no-explicit-any
  replies: any[];
}

/** Options of {@link runCli}. */
export interface RunOptions {
  /** Lines for stdin: objects are sent as JSON, strings as they are. */
  lines?: unknown[];
  /** Environment of the child (nothing inherited but PATH and HOME). */
  env?: Record<string, string>;
  /** The script `deno run` starts; the sources' cli/main.ts by default. */
  script?: string;
  /** Extra `deno run` flags placed before the script. */
  denoFlags?: string[];
  cwd?: string;
}

/** Runs `deno run -A <script> ...args`, writes the lines, closes stdin and waits for the exit. */
export async function runCli(args: string[], options: RunOptions = {}): Promise<CliRun> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...(options.denoFlags ?? []), options.script ?? CLI_MAIN, ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    cwd: options.cwd,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "",
      NO_COLOR: "1",
      ...options.env,
    },
  }).spawn();
  const input = (options.lines ?? []).map((line) => typeof line === "string" ? line : JSON.stringify(line));
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input.map((line) => line + "\n").join("")));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  const text = new TextDecoder().decode(stdout);
  return {
    code,
    stdout: text,
    stderr: new TextDecoder().decode(stderr),
    replies: text.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line)),
  };
}
