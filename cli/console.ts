/**
 * The console protocol: one JSON object per line in (`{"cmd": …, …args}`), one
 * compact JSON object per line out (`{"ok":true,"result":…}` or
 * `{"ok":false,"error":"…"}`). A thin adapter over the operations catalog.
 *
 * @module
 */
import { checkArgs, type Operation, OPERATIONS } from "../engine/operations/catalog.ts";
import { ServiceError } from "../engine/errors.ts";
import type { ModelApi } from "../engine/service/api.ts";

/** One console answer. */
export type ConsoleReply = { ok: true; result: unknown } | { ok: false; error: string };

const BY_COMMAND = new Map<string, Operation>(OPERATIONS.map((op) => [op.command, op]));

/** The `help` listing. */
export function consoleHelp(): {
  commands: { cmd: string; summary: string; required: string[]; optional: string[] }[];
} {
  return {
    commands: [
      ...OPERATIONS.map((op) => ({
        cmd: op.command,
        summary: op.summary,
        required: op.args.filter((a) => a.required).map((a) => a.name),
        optional: op.args.filter((a) => !a.required).map((a) => a.name),
      })),
      { cmd: "help", summary: "this list", required: [], optional: [] },
      { cmd: "exit", summary: 'answer "bye" and exit', required: [], optional: [] },
    ],
  };
}

/** Handles one input line; `exit` is reported so the caller can stop reading. */
export async function handleConsoleLine(
  api: ModelApi,
  line: string,
  onInternalError: (err: unknown) => void = () => {},
): Promise<{ reply: ConsoleReply; exit: boolean }> {
  const text = line.replace(/^\uFEFF/, "").trim();
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch (err) {
    return { reply: { ok: false, error: `Invalid JSON: ${(err as Error).message}` }, exit: false };
  }
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    return {
      reply: { ok: false, error: "Invalid request: expected a JSON object with a 'cmd' field" },
      exit: false,
    };
  }
  const args = request as Record<string, unknown>;
  const cmd = args.cmd;
  if (typeof cmd !== "string" || cmd === "") {
    return { reply: { ok: false, error: "Missing required field: 'cmd'" }, exit: false };
  }
  if (cmd === "help") return { reply: { ok: true, result: consoleHelp() }, exit: false };
  if (cmd === "exit") return { reply: { ok: true, result: "bye" }, exit: true };
  const op = BY_COMMAND.get(cmd);
  if (!op) {
    return {
      reply: { ok: false, error: `Unknown command: '${cmd}'. Send {"cmd":"help"} to list commands.` },
      exit: false,
    };
  }
  try {
    checkArgs(op, args);
    return { reply: { ok: true, result: (await op.run(api, args)) ?? null }, exit: false };
  } catch (err) {
    if (err instanceof ServiceError) return { reply: { ok: false, error: err.message }, exit: false };
    onInternalError(err);
    return {
      reply: { ok: false, error: `Internal error: ${(err as Error)?.message ?? String(err)}` },
      exit: false,
    };
  }
}

/**
 * Runs the protocol over a stream of lines until `exit` or end of input. Blank
 * lines are skipped; each answer is written as one line.
 */
export async function runConsole(
  api: ModelApi,
  lines: AsyncIterable<string>,
  write: (line: string) => Promise<void>,
  onInternalError?: (err: unknown) => void,
): Promise<void> {
  for await (const line of lines) {
    if (line.replace(/^\uFEFF/, "").trim() === "") continue;
    const { reply, exit } = await handleConsoleLine(api, line, onInternalError);
    await write(JSON.stringify(reply) + "\n");
    if (exit) return;
  }
}
