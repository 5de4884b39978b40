/**
 * Composition test helpers: the template and branch of decisions/composition.md,
 * link specs, and the console child process fed a script of requests.
 *
 * @module
 */
import { CLI_MAIN } from "../server/helpers.ts";

/** The template: net, gross at `vat`, an HTTP effect to `url` (inherited by branches). */
export function baseSpec(url = "https://example.com/hook", id = "acme/base"): Record<string, unknown> {
  return {
    id,
    version: "1.2.0",
    schema: { type: "object", properties: { net: { type: "number" } } },
    constants: { vat: 0.2 },
    derivations: [{ path: "$.gross", expr: "net * (1 + $const.vat)" }],
    effects: [{
      id: "notify",
      executor: "server",
      trigger: "net > 100",
      dedupeKey: "net",
      statusPath: "$.io.notify",
      request: { url, method: "POST", body: "{'net': net}" },
    }],
  };
}

/** A branch of `ref` at 22 % VAT. */
export function branchSpec(id = "beta/eu", ref = "acme/base"): Record<string, unknown> {
  return { id, template: { ref }, schema: {}, constants: { vat: 0.22 } };
}

/** A target model for links: a number `v`, doubled into `twice`, refusing negative numbers. */
export function targetSpec(id = "fx"): Record<string, unknown> {
  return {
    id,
    schema: { type: "object", properties: { v: { type: "number" }, lines: { type: "object" } } },
    derivations: [{ path: "$.twice", expr: "v * 2" }],
    constraints: [{
      id: "non-negative",
      expr: "$not(v < 0)",
      message: "v must not be negative",
      policy: "rollback",
    }],
  };
}

/** A source model with a watched read-link of `ref`'s `$.twice` and a write-link of `amt` to its `$.v`. */
export function sourceSpec(ref = "fx", id = "inv"): Record<string, unknown> {
  return {
    id,
    schema: { type: "object", properties: { need: { type: "boolean" }, amt: { type: "number" } } },
    effects: [
      {
        id: "pull",
        executor: "server",
        trigger: "need",
        dedupeKey: "need",
        target: { ref, read: "$.twice", watch: true },
        response: { set: { "$.rate": "$response" } },
        statusPath: "$.io.pull",
      },
      {
        id: "push",
        executor: "server",
        trigger: "$exists(amt)",
        dedupeKey: "amt",
        target: { ref, path: "$.v" },
        body: "amt",
        response: { set: { "$.echo": "$response.twice" } },
        statusPath: "$.io.push",
      },
    ],
  };
}

/** Runs `cli/main.ts console` over `requests` (one per line); returns each reply. */
export async function consoleReplies(
  requests: unknown[],
  env: Record<string, string> = {},
): Promise<{ ok: boolean; result?: unknown; error?: string }[]> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI_MAIN, "console"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(requests.map((r) => JSON.stringify(r)).join("\n") + "\n"));
  await writer.close();
  const output = await child.output();
  return new TextDecoder().decode(output.stdout).split("\n").filter((l) => l).map((l) => JSON.parse(l));
}
