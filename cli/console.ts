/**
 * The console protocol: one JSON object per line in (`{"cmd": …, …args}`), one
 * compact JSON object per line out (`{"ok":true,"result":…}` or
 * `{"ok":false,"error":"…"}`). The commands are the console bindings of the
 * operations (engine/operations/), run through an invoker: in-process over a
 * {@link ModelApi}, or against a server.
 *
 * @module
 */
import { ServiceError } from "../engine/errors.ts";
import { checkInput, inputMembers, isOptionalMember } from "../engine/operations/input.ts";
import { type Invoker, invokerOf } from "../engine/operations/invoker.ts";
import { OPERATIONS } from "../engine/operations/mod.ts";
import type { AnyOperation, ConsoleBinding } from "../engine/operations/operation.ts";
import type { ModelApi } from "../engine/service/api.ts";
import { lineText, LineTooLong } from "../mcp/lines.ts";
import { shortMessage } from "../engine/quoted.ts";

/** One console answer. */
export type ConsoleReply = { ok: true; result: unknown } | { ok: false; error: string };

interface Command {
  op: AnyOperation;
  // deno-lint-ignore no-explicit-any
  binding: ConsoleBinding<any, any>;
}

const COMMANDS = new Map<string, Command>(
  OPERATIONS.filter((op) => op.console).map((op) => [op.console!.command, { op, binding: op.console! }]),
);

/** The arguments a command takes (read on use: listing them builds the operation's input schema). */
function commandArgs({ op, binding }: Command): string[] {
  return [...(binding.args ?? inputMembers(op))];
}

/** The `help` listing. */
export function consoleHelp(): {
  commands: { cmd: string; summary: string; required: string[]; optional: string[] }[];
} {
  return {
    commands: [
      ...[...COMMANDS.entries()].map(([cmd, command]) => {
        const { op } = command;
        const args = commandArgs(command);
        return {
          cmd,
          summary: op.summary,
          required: args.filter((a) => !isOptionalMember(op, a)),
          optional: args.filter((a) => isOptionalMember(op, a)),
        };
      }),
      { cmd: "help", summary: "this list", required: [], optional: [] },
      { cmd: "exit", summary: 'answer "bye" and exit', required: [], optional: [] },
    ],
  };
}

/**
 * Handles one input line against a {@link ModelApi} (run in-process) or an
 * {@link Invoker}; `exit` is reported so the caller can stop reading.
 */
export async function handleConsoleLine(
  target: ModelApi | Invoker,
  line: string,
  onInternalError: (err: unknown) => void = () => {},
): Promise<{ reply: ConsoleReply; exit: boolean }> {
  const text = lineText(line);
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
  const { cmd, ...args } = request as Record<string, unknown>;
  if (cmd === undefined || cmd === null || cmd === "") {
    return { reply: { ok: false, error: "Missing required field: 'cmd'" }, exit: false };
  }
  if (typeof cmd !== "string") {
    return { reply: { ok: false, error: "Invalid field 'cmd': expected string" }, exit: false };
  }
  if (cmd === "help" || cmd === "exit") {
    // They take no arguments: a stray one is refused as every command refuses it.
    const stray = Object.keys(args).find((name) => args[name] !== null && args[name] !== undefined);
    if (stray !== undefined) {
      return {
        reply: { ok: false, error: shortMessage(`Unknown argument '${stray}' for ${cmd}; expected: none`) },
        exit: false,
      };
    }
    return cmd === "help"
      ? { reply: { ok: true, result: consoleHelp() }, exit: false }
      : { reply: { ok: true, result: "bye" }, exit: true };
  }
  const command = COMMANDS.get(cmd);
  if (!command) {
    return {
      reply: {
        ok: false,
        error: shortMessage(`Unknown command: '${cmd}'. Send {"cmd":"help"} to list commands.`),
      },
      exit: false,
    };
  }
  try {
    // Unknown members are refused, as MCP refuses them: a misspelt optional argument must not pass unseen.
    const input = checkInput(command.op, args, { args: commandArgs(command), strictFor: cmd });
    const result = await invokerOf(target).invoke(command.op, input);
    const shown = command.binding.present ? command.binding.present(result, input) : result;
    return { reply: { ok: true, result: shown ?? null }, exit: false };
  } catch (err) {
    if (err instanceof ServiceError) {
      return { reply: { ok: false, error: shortMessage(err.message) }, exit: false };
    }
    onInternalError(err);
    return {
      reply: { ok: false, error: shortMessage(`Internal error: ${(err as Error)?.message ?? String(err)}`) },
      exit: false,
    };
  }
}

/** A person at a terminal: a banner once, then a prompt before each line (never on stdout). */
export interface ConsolePrompt {
  banner: string;
  /** Writes the banner or the prompt (to stderr). */
  show(text: string): Promise<void>;
}

/** The prompt shown before each command. */
export const PROMPT = "svc> ";

/**
 * Runs the protocol over a stream of lines until `exit` or end of input. Blank
 * lines are skipped; each answer is written as one line. With `prompt` (stdin
 * is a terminal) a banner and prompts are shown beside the protocol, and a
 * line break at the end of input (Ctrl-D).
 */
export async function runConsole(
  target: ModelApi | Invoker,
  lines: AsyncIterable<string | LineTooLong>,
  write: (line: string) => Promise<void>,
  onInternalError?: (err: unknown) => void,
  prompt?: ConsolePrompt,
): Promise<void> {
  const invoker = invokerOf(target);
  await prompt?.show(`${prompt.banner}\n${PROMPT}`);
  for await (const line of lines) {
    if (line instanceof LineTooLong || lineText(line) === "") {
      if (line instanceof LineTooLong) await write(JSON.stringify({ ok: false, error: line.message }) + "\n");
      await prompt?.show(PROMPT);
      continue;
    }
    const { reply, exit } = await handleConsoleLine(invoker, line, onInternalError);
    await write(JSON.stringify(reply) + "\n");
    if (exit) return;
    await prompt?.show(PROMPT);
  }
  // Ctrl-D at the prompt: end its line, so that the shell's prompt does not follow it on the same line.
  await prompt?.show("\n");
}
