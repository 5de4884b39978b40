/**
 * `svc serve` whose startup leaves a promise rejection unhandled (its reason
 * quotes a URL with a password), then prints the startup line: the process
 * spawned by tests/server/unhandled_rejection_test.ts.
 *
 * @module
 */
import { runServe } from "../../server/main.ts";
import { consoleLogger } from "../../server/log.ts";

const stray = Object.assign(new Error("stray: postgres://svc:hunter2@db:5432/svc went away"), {
  code: "ECONNRESET",
});

Deno.exit(
  await runServe(Deno.args.slice(1), {
    ...consoleLogger,
    info(message) {
      if (!message.includes(" listening on ")) return consoleLogger.info(message);
      Promise.reject(stray);
      // Printed once the rejection was reported: a process it ended never prints it.
      setTimeout(() => consoleLogger.info(message), 0);
    },
  }),
);
