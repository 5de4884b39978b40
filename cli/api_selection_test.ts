import assert from "node:assert/strict";
import { ServiceError } from "../engine/errors.ts";
import { createModel, listModels } from "../engine/operations/mod.ts";
import { ModelService } from "../engine/service/service.ts";
import { openApi, planApi } from "./api_selection.ts";

const resolveApi = async (...args: Parameters<typeof planApi>) => await openApi(await planApi(...args));

const envOf = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("embedded by default; --url or SVC_URL selects remote, the command line winning", async () => {
  const embedded = await resolveApi([], envOf({}));
  assert.equal(embedded.mode, "embedded");
  assert.ok(embedded.service instanceof ModelService);
  assert.deepEqual(await embedded.invoker.invoke(listModels, {}), []);
  await embedded.close();

  const fromEnv = await resolveApi(["console"], envOf({ SVC_URL: "http://127.0.0.1:9/", SVC_API_KEY: "k" }));
  assert.equal(fromEnv.mode, "remote");
  assert.equal(fromEnv.url, "http://127.0.0.1:9");
  assert.equal(fromEnv.service, undefined);
  assert.equal(fromEnv.apiKey, "k");

  const fromArgs = await resolveApi(
    ["--url", "http://127.0.0.1:8"],
    envOf({ SVC_URL: "http://127.0.0.1:9" }),
  );
  assert.equal(fromArgs.url, "http://127.0.0.1:8");
  assert.equal(fromArgs.apiKey, undefined);
  // A blank SVC_URL is unset.
  assert.equal((await resolveApi([], envOf({ SVC_URL: "  " }))).mode, "embedded");
  await assert.rejects(resolveApi(["--url", "nope"], envOf({})), ServiceError);
});

Deno.test("embedded mode reads engine keys from the environment and from --config", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/svc.yaml`, "svc:\n  max-models: 1\n");
    for (
      const [args, env] of [[["--config", `${dir}/svc.yaml`], {}], [[], { SVC_MAX_MODELS: "1" }]] as const
    ) {
      const { invoker, close } = await resolveApi(args, envOf(env));
      try {
        await invoker.invoke(createModel, { spec: { id: "a", schema: { type: "object" } } });
        await assert.rejects(
          invoker.invoke(createModel, { spec: { id: "b", schema: { type: "object" } } }),
          { kind: "too_many" },
        );
      } finally {
        await close();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
