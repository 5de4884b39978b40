/**
 * `svc`: one entry point for every local surface.
 *
 *   svc console   console protocol on stdin/stdout (embedded in memory, or remote with --url)
 *   svc mcp       MCP over stdio (embedded, or remote with --url; --browser pairs with a person's tab)
 *   svc serve     the HTTP server (REST, WebSocket, MCP at /mcp), see server/main.ts
 *
 * @module
 */
import { SERVICE_NAME, SERVICE_VERSION } from "../engine/version.ts";
import { ServiceError } from "../engine/errors.ts";
import type { Invoker } from "../engine/operations/invoker.ts";
import { type ApiPlan, type ApiSelection, openApi, planApi } from "./api_selection.ts";
import { type CliArgs, parseCliArgs } from "./args.ts";
import { readLines, stdinChunks, writeStdout } from "../mcp/lines.ts";
import { serveLazyMcpStdio } from "../mcp/lazy.ts";
import { consoleLogger, oneLine } from "../server/log.ts";

const USAGE = `Usage: svc <command> [options]

Commands:
  console          speak the console protocol on stdin/stdout (one JSON object per line);
                   the default command
  mcp              serve MCP over stdio (for an agent's MCP client)
  serve            run the HTTP server (REST, WebSocket, MCP at /mcp) on SVC_PORT (default 8080)

Options:
  --url <base>     remote mode for console and mcp: use the server at <base> (env SVC_URL)
                   instead of an in-memory service; the pure authoring tools stay local
  --api-key <key>  the server's API key in remote mode (env SVC_API_KEY); never printed
  --timeout <ms>   how long a remote request waits for the server before it fails
                   (env SVC_REMOTE_TIMEOUT_MS, default 60000); generation waits as long as it takes
  --browser        with --url: remote-with-browser mode, where a person approves a pairing in
                   their browser (pair_browser / pair-browser) and watches and edits the
                   session's models live; no API key needed
  --config <file>  read svc.* keys from a JSON or YAML file (environment variables win)
  --strict-config  refuse to start when an SVC_* variable or config key is unknown (a typo);
                   without it, each is a warning naming the nearest known key
  --help, -h       show this help
  --version, -V    print the version

Configuration: every svc.* key as an environment variable SVC_* (for example
SVC_MAX_MODELS=50 for svc.max-models).`;

/** Prints a start-up failure as one `error:` line, as `svc serve` does, never a stack trace. */
function startFailed(err: unknown): void {
  consoleLogger.error(err instanceof Error ? err.message : String(err));
}

/**
 * The API plan, or the exit code of a failure to plan it, reported: 2 for a
 * usage error (a malformed `--url`), 1 for the configuration (an unreadable
 * `--config` file, a malformed or, with `--strict-config`, unknown key).
 */
async function planCliApi(cli: CliArgs): Promise<ApiPlan | number> {
  try {
    return await planApi(cli.rest);
  } catch (err) {
    startFailed(err);
    return err instanceof ServiceError ? 2 : 1;
  }
}

async function runConsoleCommand(cli: CliArgs): Promise<number> {
  const plan = await planCliApi(cli);
  if (typeof plan === "number") return plan;
  let opened: [ApiSelection, typeof import("./console.ts")];
  try {
    // Loaded on demand, with the API: `svc mcp`, --help and --version need neither.
    opened = await Promise.all([openApi(plan), import("./console.ts")]);
  } catch (err) {
    startFailed(err);
    return 1;
  }
  const [{ invoker, close, mode, url }, { runConsole }] = opened;
  const encoder = new TextEncoder();
  // A person at a terminal gets a banner and prompts (on stderr); pipes get the bare protocol.
  const prompt = Deno.stdin.isTerminal()
    ? {
      banner:
        `${SERVICE_NAME} ${SERVICE_VERSION} console (${
          mode === "embedded" ? "embedded, in memory" : `${mode}: ${url}`
        }). ` +
        `One JSON command per line, e.g. {"cmd":"help"}; {"cmd":"exit"} or Ctrl-D ends.`,
      show: async (text: string) => {
        await Deno.stderr.write(encoder.encode(text));
      },
    }
    : undefined;
  try {
    await runConsole(
      invoker,
      readLines(stdinChunks()),
      (line) => writeStdout(encoder.encode(line)),
      (err) => console.error(err),
      prompt,
    );
  } catch (err) {
    // The reader went away (`svc console | head -1`): nobody is left to answer, so stop quietly, as a pipe's
    // writer does, rather than with a stack trace.
    if (!(err instanceof Deno.errors.BrokenPipe)) throw err;
  } finally {
    await close();
  }
  return 0;
}

/**
 * `svc mcp`: MCP over stdio until stdin ends; only protocol messages on
 * stdout. The handshake is answered before the API, the operations and the
 * SDK are loaded (mcp/lazy.ts).
 */
async function runMcpCommand(cli: CliArgs): Promise<number> {
  const plan = await planCliApi(cli);
  if (typeof plan === "number") return plan;
  const onError = (err: unknown) =>
    console.error(`mcp: ${oneLine(err instanceof Error ? err.message : String(err))}`);
  let selection: ApiSelection | undefined;
  const load = async () => {
    selection = await openApi(plan);
    const { invoker, mode, service, url, apiKey } = selection;
    const [server, events] = await Promise.all([import("../mcp/server.ts"), import("../mcp/events.ts")]);
    return server.createMcpServer(invoker, {
      mode,
      events: service
        ? events.serviceCommitEvents(service)
        : events.websocketCommitEvents(invoker, url!, apiKey),
      features: { generation: await generationAvailable(invoker), pairing: mode === "browser" },
      onError,
    });
  };
  // A client that closed its end of stdout is gone: its answers are dropped, said once, not failed one by one.
  let gone = false;
  const output = async (bytes: Uint8Array) => {
    if (gone) return;
    try {
      await writeStdout(bytes);
    } catch (err) {
      if (!(err instanceof Deno.errors.BrokenPipe)) throw err;
      // Answers written at once fail together: the first to fail says so.
      if (gone) return;
      gone = true;
      onError(new Error("stdout closed: the client is gone; answers are dropped until stdin ends"));
    }
  };
  try {
    await serveLazyMcpStdio({ load, input: stdinChunks(), output, onError });
  } finally {
    await selection?.close();
  }
  return 0;
}

/** How long `svc mcp --url` waits for the server's `GET /llm/status` before listing the tools without it. */
const GENERATION_STATUS_WAIT_MS = 3000;

/**
 * Whether the generation tools work here: the service's own provider, or in
 * remote mode the server's (asked once at start; a server that cannot answer
 * within {@link GENERATION_STATUS_WAIT_MS} offers none, so a slow server does
 * not hold up the local tools).
 */
async function generationAvailable(invoker: Invoker): Promise<boolean> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), GENERATION_STATUS_WAIT_MS);
  try {
    const { getGenerationStatus } = await import("../engine/operations/generation.ts");
    return (await invoker.invoke(getGenerationStatus, {}, { signal: abort.signal })).available;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the CLI with the given arguments; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  let cli: CliArgs;
  try {
    cli = parseCliArgs(args);
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (cli.help) {
    console.log(USAGE);
    return 0;
  }
  if (cli.version) {
    console.log(`${SERVICE_NAME} ${SERVICE_VERSION}`);
    return 0;
  }
  const command = cli.command ?? "console";
  switch (command) {
    case "console":
      return await runConsoleCommand(cli);
    case "mcp":
      return await runMcpCommand(cli);
    case "serve": {
      // Loaded on demand: the console does not need the HTTP stack.
      const { runServe } = await import("../server/main.ts");
      return await runServe(cli.rest);
    }
    default:
      console.error(`Unknown command '${command}'.\n\n${USAGE}`);
      return 2;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
