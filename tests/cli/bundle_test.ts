/**
 * `deno task bundle`: the single-file JS entry, built into a temporary
 * directory and started with `deno run` from a directory without any Deno
 * configuration (as `npx -y deno run -A svc.js` would): it answers console
 * lines, and the commands it loads on demand (`mcp`, `serve`, remote mode) work too.
 */
import assert from "node:assert/strict";
import { buildCliBundle } from "../../cli/build/bundle.ts";
import { call, inProcessServer, orderSpec, spawnServe } from "../server/helpers.ts";
import { sharedPostgres } from "../storage/postgres_cluster.ts";
import { runCli } from "./helpers.ts";

Deno.test("the bundle answers console lines and MCP, serves with --unstable-kv, and talks to that server", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-bundle-" });
  try {
    const { outfile, bytes, eagerFunctions } = await buildCliBundle({ outfile: `${dir}/svc.js` });
    assert.ok(bytes > 0);
    // The console's and MCP's start-up, profiled at build time, compiled when the bundle is (build/eager_compile.ts).
    assert.ok(eagerFunctions > 100, `${eagerFunctions} start-up functions compiled eagerly`);
    const source = await Deno.readTextFile(outfile);
    assert.ok(!/from\s*"npm:|from\s*"(?!node:)[a-z@]/.test(source), "no import left but node: built-ins");
    // A built-in imported statically loads at every start with Deno's Node compatibility layer (node:worker_threads
    // in the KV store cost the console 10-20 ms): they are reached on first use (cli/build/bundle.ts) or imported
    // where used.
    assert.deepEqual(
      [...source.matchAll(/\bimport\s*[^;()"]*?from\s*"(node:[\w/]+)"|\bimport\s*"(node:[\w/]+)"/g)].map((
        m,
      ) => m[1] ?? m[2]),
      [],
      "built-ins imported at the bundle's top",
    );
    const cwd = await Deno.makeTempDir({ dir });

    const version = await runCli(["--version"], { script: outfile, cwd });
    assert.match(version.stdout, /^reactive-model-service \S+\n$/);

    const embedded = await runCli(["console"], {
      script: outfile,
      cwd,
      lines: [
        { cmd: "create-model", spec: orderSpec() },
        { cmd: "mutate", id: "order", mutations: { "$.qty": 4, "$.price": 2.5 } },
        { cmd: "get-field", id: "order", path: "$.total" },
        // JSONata, RE2, Ajv with its formats and JSON Patch are loaded on first use in the bundle (cli/build/bundle.ts).
        { cmd: "patch-mutate", id: "order", patch: [{ op: "replace", path: "/qty", value: 2 }] },
        { cmd: "patch-mutate", id: "order", patch: [{ op: "replace", path: "qty", value: 2 }] },
        { cmd: "eval-expression", expr: '$match("a1b22", /[0-9]+/)[1].match' },
        {
          cmd: "validate-spec",
          spec: {
            id: "mail",
            schema: { type: "object", properties: { to: { type: "string", format: "email" } } },
          },
        },
        { cmd: "exit" },
      ],
    });
    assert.equal(embedded.code, 0, embedded.stderr);
    assert.deepEqual(embedded.replies.map((r) => r.ok), [true, true, true, true, false, true, true, true]);
    assert.equal(embedded.replies[2].result, 10);
    assert.deepEqual(embedded.replies[3].result.mutatedPaths, ["$.qty"]);
    assert.match(embedded.replies[4].error, /^Invalid JSON Patch: .*\[OPERATION_PATH_INVALID\]$/);
    assert.equal(embedded.replies[5].result.result, "22");
    assert.equal(embedded.replies[6].result.valid, true);

    const mcp = await runCli(["mcp"], {
      script: outfile,
      cwd,
      lines: [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "test", version: "1" },
          },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        {
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "list_models", arguments: {} },
        },
      ],
    });
    assert.equal(mcp.code, 0, mcp.stderr);
    // The handshake is answered before the server is loaded; what follows once it is.
    const answers = mcp.replies.filter((message) => "id" in message).sort((a, b) => a.id - b.id);
    assert.deepEqual(answers.map((message) => message.id), [1, 2, 3], mcp.stdout);
    assert.equal(answers[0].result?.serverInfo?.name, "reactive-model-service", mcp.stdout);
    assert.ok(answers[1].result.tools.some((tool: { name: string }) => tool.name === "create_model"));
    assert.equal(answers[2].result.content[0].text, "[]");

    const key = "bundle-key-31";
    // A web build beside the bundle (`deno task start` writes dist/web beside dist/svc.js) is served.
    await Deno.mkdir(`${dir}/web`);
    await Deno.writeTextFile(`${dir}/web/index.html`, "<!doctype html><title>beside the bundle</title>");
    const serve = await spawnServe({
      script: outfile,
      cwd,
      denoFlags: ["--unstable-kv"],
      env: { SVC_API_KEY: key, SVC_PERSISTENCE_DIR: `${dir}/data` },
    });
    try {
      assert.ok(serve.url, "the bundle's serve printed its startup line");
      const page = await fetch(`${serve.url}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /beside the bundle/);
      // The bundle initialises the operations' modules on demand: the API document must still name every component.
      const served =
        await (await fetch(`${serve.url}/v3/api-docs`, { headers: { authorization: `Bearer ${key}` } }))
          .json();
      const local = await inProcessServer();
      try {
        const expected = await (await local.app.request("/v3/api-docs")).json();
        assert.deepEqual(served.components.schemas, expected.components.schemas);
      } finally {
        await local.close();
      }
      const remote = await runCli(["console", "--url", serve.url!], {
        script: outfile,
        cwd,
        env: { SVC_API_KEY: key },
        lines: [{ cmd: "create-model", spec: orderSpec() }, { cmd: "create-model", spec: orderSpec() }, {
          cmd: "list-models",
        }],
      });
      assert.deepEqual(remote.replies, [
        { ok: true, result: { id: "order", status: "created" } },
        { ok: false, error: "Model 'order' already exists: delete it first, or evolve its spec" },
        { ok: true, result: ["order"] },
      ]);
    } finally {
      const { code, stdout, stderr } = await serve.stop();
      assert.equal(code, 0, stderr);
      assert.match(stdout, /\(storage: kv \(.*svc\.kv\); auth: API key\)/);
      assert.ok(!stdout.includes(key) && !stderr.includes(key));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the bundle serves on PostgreSQL and starts an mcp repository child", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-bundle-pg-" });
  try {
    const { outfile } = await buildCliBundle({ outfile: `${dir}/svc.js` });
    const database = await (await sharedPostgres()).database();
    const serve = await spawnServe({
      script: outfile,
      cwd: dir,
      env: {
        SVC_STORAGE_TYPE: "postgres",
        SVC_STORAGE_POSTGRES_URL: database,
        SVC_COMPOSITION_REPOSITORIES: JSON.stringify([
          { id: "kid", transport: "mcp", locator: [Deno.execPath(), "run", "-A", outfile, "mcp"] },
        ]),
      },
    });
    try {
      assert.ok(serve.url, "the bundle's serve printed its startup line");
      assert.equal((await call(serve.url!, "POST", "/models", orderSpec())).status, 201);
      const promoted = await call(serve.url!, "POST", "/models/order/promote", { toRepo: "kid" });
      assert.equal(promoted.status, 200, promoted.text);
      const branch = await call(serve.url!, "POST", "/models", {
        id: "mine",
        template: { ref: "order" },
        schema: {},
      });
      assert.equal(branch.status, 201, branch.text);
    } finally {
      const { code, stdout, stderr } = await serve.stop();
      assert.equal(code, 0, stderr);
      assert.match(stdout, /\(storage: postgres/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
