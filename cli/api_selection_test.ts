import assert from "node:assert/strict";
import { ServiceError } from "../engine/errors.ts";
import { type AuditRecord, hashRecord } from "../engine/audit/chain.ts";
import { createModel, getAudit, listModels, mutate, verifyAudit } from "../engine/operations/mod.ts";
import { WEB_HASHER } from "../engine/ports.ts";
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

Deno.test("remote requests wait --timeout or svc.remote.timeout-ms (default 60 s, from the environment or --config); malformed values are refused", async () => {
  const url = ["--url", "http://127.0.0.1:9"];
  const timeoutOf = async (args: string[], vars: Record<string, string> = {}) => {
    const plan = await planApi([...url, ...args], envOf(vars));
    return plan.mode === "embedded" ? undefined : plan.timeoutMs;
  };
  assert.equal(await timeoutOf([]), 60_000);
  assert.equal(await timeoutOf(["--timeout", "250"]), 250);
  assert.equal(await timeoutOf(["--browser", "--timeout=250"]), 250);
  assert.equal(await timeoutOf([], { SVC_REMOTE_TIMEOUT_MS: "1500" }), 1500);
  assert.equal(
    await timeoutOf(["--timeout", "250"], { SVC_REMOTE_TIMEOUT_MS: "1500" }),
    250,
    "the option wins",
  );
  for (const bad of ["0", "-5", "1.5", "1e3", "abc", "", " ", "2147483648"]) {
    await assert.rejects(
      timeoutOf(["--timeout", bad]),
      (err: Error) =>
        err instanceof ServiceError &&
        err.message ===
          `Option --timeout must be a whole number of milliseconds from 1 to 2147483647, got '${bad}'`,
      bad,
    );
  }
  for (
    const [bad, message] of [["0", /must be 1\.\.2147483647, got 0/], ["soon", /must be an integer/]] as const
  ) {
    await assert.rejects(
      timeoutOf([], { SVC_REMOTE_TIMEOUT_MS: bad }),
      (err: Error) =>
        !(err instanceof ServiceError) &&
        /svc\.remote\.timeout-ms \(SVC_REMOTE_TIMEOUT_MS\)/.test(err.message) &&
        message.test(err.message),
      bad,
    );
  }
  // A --config file counts as for serve: the environment wins over it, the option over both.
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/svc.yaml`;
    await Deno.writeTextFile(file, "svc:\n  remote:\n    timeout-ms: 2500\n");
    assert.equal(await timeoutOf(["--config", file]), 2500);
    assert.equal(await timeoutOf(["--browser", "--config", file]), 2500);
    assert.equal(await timeoutOf(["--config", file], { SVC_REMOTE_TIMEOUT_MS: "1500" }), 1500);
    assert.equal(await timeoutOf(["--config", file, "--timeout", "250"]), 250);
    await assert.rejects(timeoutOf(["--config", `${dir}/missing.yaml`]), /missing\.yaml/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  // Without a server nothing is remote: the option is pointless, and said to be.
  const warnings: string[] = [];
  const embedded = await planApi(["--timeout", "250"], envOf({}), { warn: (m) => warnings.push(m) });
  assert.equal(embedded.mode, "embedded");
  assert.deepEqual(warnings, ["--timeout is not used without --url: nothing is remote"]);
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

Deno.test("embedded mode hashes audit records with node:crypto as the server does; the digests are the portable ones", async () => {
  const { invoker, service, close } = await resolveApi([], envOf({}));
  try {
    assert.notEqual(service!.platform.hasher, WEB_HASHER);
    await invoker.invoke(createModel, {
      spec: { id: "a", schema: { type: "object", properties: { n: { type: "number" } } } },
    });
    await invoker.invoke(mutate, { id: "a", mutations: { "$.n": 1 } });
    await invoker.invoke(mutate, { id: "a", mutations: { "$.n": 2 } });
    const verified = await invoker.invoke(verifyAudit, { id: "a" });
    assert.equal(verified.valid, true);
    assert.ok(verified.recordsChecked >= 2);
    for (const record of await invoker.invoke(getAudit, { id: "a" })) {
      const { prevHash, hash, signature: _, ...body } = record as AuditRecord;
      assert.equal(await hashRecord(body, prevHash, WEB_HASHER), hash);
    }
  } finally {
    await close();
  }
});

Deno.test("a --config key nothing reads is a warning naming the nearest key in every mode, and refused in strict mode", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/svc.yaml`;
    await Deno.writeTextFile(file, "svc:\n  max-models: 3\n  prot: 9\n");
    const warning = "unknown configuration svc.prot is ignored (did you mean svc.port?)";
    const strictModes: [string[], Record<string, string>][] = [
      [["--strict-config"], {}],
      [[], { SVC_CONFIG_STRICT: "true" }],
    ];
    for (const mode of [[], ["--url", "http://127.0.0.1:9"], ["--url", "http://127.0.0.1:9", "--browser"]]) {
      const warnings: string[] = [];
      await planApi([...mode, "--config", file], envOf({}), { warn: (m) => warnings.push(m) });
      assert.deepEqual(warnings, [warning], mode.join(" "));
      for (const [strictArgs, strictEnv] of strictModes) {
        await assert.rejects(
          planApi([...mode, "--config", file, ...strictArgs], envOf(strictEnv)),
          (err: Error) => err.message.includes("refused: svc.prot (did you mean svc.port?)"),
          `${mode.join(" ")} ${strictArgs.join(" ")}`,
        );
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
