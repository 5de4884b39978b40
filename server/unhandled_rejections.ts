/**
 * What `svc serve` does with a promise rejection nobody handled: Deno would
 * end the process, and with it every tenant's service, for one stray promise
 * (a library's, as postgres.js dropped one while the database stopped). The
 * data is safe either way (every acknowledged write is durable, a restart
 * recovers as after `kill -9`), so the server logs one line and keeps serving.
 * Only rejections: an uncaught exception still ends the process.
 *
 * @module
 */
import { maskCredentials, MAX_QUOTED_WORD, quoted } from "../engine/quoted.ts";
import type { Logger } from "./log.ts";

/** Characters of the reason's message logged at most. */
const MAX_MESSAGE = 300;

/**
 * The reason, on one bounded line: its name, code and message, and where it
 * was thrown; a URL's password masked (`postgres://svc:***@db`), before the
 * cut, so a cut inside a password cannot show its start.
 */
export function describeRejection(reason: unknown): string {
  const error = reason instanceof Error ? reason : null;
  const code = (reason as { code?: unknown } | null)?.code;
  let message = error ? `${error.name}: ${error.message}` : String(reason);
  if (typeof code === "string" && !message.includes(code)) message += ` (${code})`;
  const frame = error?.stack?.split("\n").find((line) => /^\s+at /.test(line))?.trim();
  const shown = quoted(maskCredentials(message), MAX_MESSAGE);
  return frame ? `${shown} ${quoted(maskCredentials(frame), MAX_QUOTED_WORD)}` : shown;
}

/** Logs each unhandled rejection instead of ending the process; returns the uninstaller. */
export function keepServingOnUnhandledRejections(log: Logger): () => void {
  const onRejection = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    log.error(`unhandled promise rejection (a bug; still serving): ${describeRejection(event.reason)}`);
  };
  globalThis.addEventListener("unhandledrejection", onRejection);
  return () => globalThis.removeEventListener("unhandledrejection", onRejection);
}
