import assert from "node:assert/strict";
import { effectService, jobOf } from "../../engine/effects/test_support.ts";
import { hostExecutors } from "./mod.ts";
import { loadPlugins, pluginExecutor } from "./plugins.ts";
import { DEFAULT_MAX_RESPONSE_BYTES } from "./config.ts";
import { STRICT_POLICY } from "../egress/mod.ts";

const PLUGIN = `export default {
  kind: "echo",
  validate: (effect) => effect.channel ? [] : ["an echo effect needs a channel"],
  async execute(request) {
    if (request.definition.channel === "down") throw new Error("channel down");
    return { response: { said: request.document.text, key: request.key, channel: request.definition.channel }, status: 201 };
  },
};`;

async function withPlugin(run: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "plugin_" });
  try {
    await Deno.writeTextFile(`${dir}/echo.js`, PLUGIN);
    await run(`${dir}/echo.js`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const config = (plugins: string[]) => ({
  egress: STRICT_POLICY,
  maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
  plugins,
});

Deno.test("a plugin kind validates specs, runs with the fired effect and folds back", async () => {
  await withPlugin(async (path) => {
    const executors = await loadPlugins([path]);
    const { service, scheduler } = await effectService(executors);
    await assert.rejects(
      service.createModel({
        id: "bad",
        schema: {},
        effects: [{ id: "e", executor: "echo", trigger: "true" }],
      }),
      (err: Error) => /effects\[0\]: an echo effect needs a channel/.test(err.message),
    );
    await service.createModel({
      id: "p",
      schema: { type: "object", properties: { text: { type: "string" }, out: {}, io: {} } },
      effects: [{
        id: "e",
        executor: "echo",
        channel: "ops",
        trigger: "text != null",
        dedupeKey: "text",
        response: { set: { "$.out": "$merge([$response, {'status': $status}])" } },
        statusPath: "$.io",
      }],
    });
    await service.mutate("p", { "$.text": "hello" });
    await scheduler.advance(0);
    const state = await service.getState("p") as { out: unknown; io: { phase: string } };
    assert.deepEqual(state.out, { said: "hello", key: "hello", channel: "ops", status: 201 });
    assert.equal(state.io.phase, "applied");
    await service.close();
  });
});

Deno.test("startup refuses a plugin module that is not one, and an enabled kind nothing runs", async () => {
  await withPlugin(async (path) => {
    await assert.rejects(loadPlugins(["./no/such/module.js"]), /svc\.effects\.plugins: cannot load/);
    const notPlugin = path.replace("echo.js", "other.js");
    await Deno.writeTextFile(notPlugin, "export const x = 1;");
    await assert.rejects(loadPlugins([notPlugin]), /does not export \{kind, execute/);
    await assert.rejects(
      hostExecutors({ config: config([]), kindsEnabled: ["server", "pager"] }),
      /svc\.effects\.kinds\.enabled \(SVC_EFFECTS_KINDS_ENABLED\) lists 'pager' but no executor is installed/,
    );
    const kinds = (await hostExecutors({ config: config([path]), kindsEnabled: ["caller", "echo", "timer"] }))
      .map((e) => e.kind);
    assert.deepEqual(kinds, ["timer", "echo"]);
  });
});

Deno.test("a plugin gets the job's idempotency key, the same at every attempt of one firing", async () => {
  const keys: string[] = [];
  const executor = pluginExecutor({
    kind: "pay",
    execute(_request, context) {
      keys.push(context.idempotencyKey);
      if (keys.length === 1) throw new Error("gateway timed out");
      return Promise.resolve({ response: { charged: true } });
    },
  });
  const job = jobOf({ type: "plugin", definition: {}, document: null }, "pay");
  const context = { signal: new AbortController().signal, timeoutMs: 1000 };
  assert.equal((await executor.execute({ ...job, id: "charge card@5#1" }, context)).ok, false);
  assert.equal((await executor.execute({ ...job, id: "charge card@5#1", attempt: 1 }, context)).ok, true);
  await executor.execute({ ...job, id: "charge card@9#2" }, context);
  // The server kind's Idempotency-Key for the same job: a plugin and an http effect dedupe alike.
  assert.deepEqual(keys, ["charge%20card%405%231", "charge%20card%405%231", "charge%20card%409%232"]);
});
