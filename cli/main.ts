/**
 * `svc`: one entry point for every local surface.
 *
 *   svc console   console protocol on stdin/stdout (embedded, in memory)
 *   svc serve     the HTTP server (REST, WebSocket), see server/main.ts
 *
 * @module
 */
import { engineConfig } from "../engine/config.ts";
import { ModelService } from "../engine/service/service.ts";
import { SERVICE_NAME, SERVICE_VERSION } from "../engine/version.ts";
import { runConsole } from "./console.ts";
import { readLines } from "./lines.ts";

const USAGE = `Usage: svc <command> [options]

Commands:
  console     speak the console protocol on stdin/stdout (one JSON object per line)
  serve       run the HTTP server on SVC_PORT (default 8080); --config <file> reads
              svc.* keys from a JSON or YAML file (environment variables win)

Options:
  --help      show this help
  --version   print the version

Configuration: every svc.* key as an environment variable SVC_* (for example
SVC_MAX_MODELS=50 for svc.max-models).`;

/** Looks configuration keys up in the environment. */
function envLookup(key: string): string | undefined {
  return Deno.env.get(key.toUpperCase().replace(/[.-]/g, "_"));
}

async function runConsoleCommand(): Promise<void> {
  const service = await ModelService.open({
    config: engineConfig(envLookup),
    observer: { warn: (message) => console.error(`warning: ${message}`) },
  });
  const stdout = Deno.stdout.writable.getWriter();
  const encoder = new TextEncoder();
  await runConsole(
    service,
    readLines(Deno.stdin.readable),
    (line) => stdout.write(encoder.encode(line)),
    (err) => console.error(err),
  );
  await stdout.ready;
}

/** Runs the CLI with the given arguments; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  if (args.includes("--version")) {
    console.log(`${SERVICE_NAME} ${SERVICE_VERSION}`);
    return 0;
  }
  const command = args.find((a) => !a.startsWith("-")) ?? "console";
  switch (command) {
    case "console":
      await runConsoleCommand();
      return 0;
    case "serve": {
      // Loaded on demand: the console does not need the HTTP stack.
      const { runServe } = await import("../server/main.ts");
      return await runServe(args.slice(args.indexOf(command) + 1));
    }
    default:
      console.error(`Unknown command '${command}'.\n\n${USAGE}`);
      return 2;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
