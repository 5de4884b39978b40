/**
 * The console's embedded service runs effects too: an HTTP effect against a
 * loopback target and a timer, in a real `svc console` process.
 */
import assert from "node:assert/strict";
import { readLines } from "../../mcp/lines.ts";
import { CLI_MAIN } from "../server/helpers.ts";
import { rateModel, startTarget } from "./helpers.ts";

Deno.test("svc console runs HTTP and timer effects in embedded mode", async () => {
  const target = startTarget(() => Response.json({ rate: 3 }));
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI_MAIN, "console"],
    env: { NO_COLOR: "1", SVC_EFFECTS_ALLOW_PRIVATE_IPS: "true", SVC_EFFECTS_ALLOW_INSECURE_HTTP: "true" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const replies = readLines(child.stdout)[Symbol.asyncIterator]();
  const send = async (command: Record<string, unknown>) => {
    await writer.write(new TextEncoder().encode(JSON.stringify(command) + "\n"));
    return JSON.parse((await replies.next()).value as string);
  };
  try {
    const spec = rateModel(target.url);
    (spec.effects as unknown[]).push({
      id: "later",
      executor: "timer",
      trigger: "rate != null",
      dedupeKey: "rate",
      afterMs: "100",
      response: { set: { "$.region": "'done'" } },
    });
    assert.equal((await send({ cmd: "create-model", spec })).ok, true);
    assert.equal(
      (await send({ cmd: "mutate", id: "quote", mutations: { "$.region": "eu", "$.enabled": true } })).ok,
      true,
    );
    let state: { rate?: number; region?: string } = {};
    for (let i = 0; i < 100 && state.region !== "done"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      state = (await send({ cmd: "get-state", id: "quote" })).result;
    }
    assert.equal(state.rate, 3, "the HTTP effect folded back");
    assert.equal(state.region, "done", "the timer fired");
    assert.equal(target.hits[0].path, "/rate?region=eu");
  } finally {
    await writer.close();
    await child.status;
    await child.stderr.cancel();
    await target.close();
  }
});
