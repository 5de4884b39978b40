/**
 * The API key gate on a real server, route by route from the route table, in
 * keyed and open mode; and the `serve` command as a child process: its
 * startup line, `--config`, graceful shutdown, and no key in any log line.
 */
import assert from "node:assert/strict";
import { ROUTES } from "../../server/routes/mod.ts";
import { call, CLI_MAIN, orderSpec, spawnServe, startTestServer } from "./helpers.ts";

const SAMPLE_PARAMS: Record<string, string> = {
  id: "order",
  path: encodeURIComponent("$.qty"),
  blobId: "0".repeat(64),
  name: "svc.models.created",
  viewId: "main",
};

/** A concrete URL path for a route template. */
function concrete(template: string): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => SAMPLE_PARAMS[name] ?? name);
}

Deno.test("keyed mode: every route but health and info answers 401 without the key, with the key it passes", async () => {
  const key = "route-table-key";
  const server = await startTestServer({ "svc.api.key": key });
  try {
    const auth = { authorization: `Bearer ${key}` };
    await call(server.url, "POST", "/models", orderSpec(), auth);
    for (const route of ROUTES) {
      // A pairing session's own description needs a session's token, not the key (pairing_test.ts).
      if (route.path === "/pair/session") continue;
      const path = concrete(route.path);
      const method = route.method.toUpperCase();
      const without = await call(server.url, method, path);
      if (route.open) {
        // Open: answered without the key (the pairing token poll then asks for its body).
        assert.notEqual(without.status, 401, `${method} ${route.path} is open`);
        continue;
      }
      assert.equal(without.status, 401, `${method} ${route.path}`);
      const wrong = await call(server.url, method, path, undefined, { authorization: "Bearer nope" });
      assert.equal(wrong.status, 401, `${method} ${route.path} with a wrong key`);
      for (const refused of [without, wrong]) {
        // The documented body, which is no problem document: plain JSON says so.
        assert.deepEqual(refused.json, { error: "Missing or invalid API key" });
        assert.equal(refused.headers.get("content-type"), "application/json", `${method} ${route.path}`);
      }
      const withKey = await call(server.url, method, path, undefined, auth);
      assert.notEqual(withKey.status, 401, `${method} ${route.path} with the key`);
    }
    assert.equal(
      (await call(server.url, "GET", "/no/such/route")).status,
      401,
      "unknown paths are gated too",
    );
  } finally {
    await server.close();
  }
});

Deno.test("open mode: no route asks for a key; the startup warns", async () => {
  const server = await startTestServer();
  try {
    for (const route of ROUTES) {
      // A pairing session's own description needs a session's token, in every mode (pairing_test.ts).
      if (route.path === "/pair/session") continue;
      const reply = await call(server.url, route.method.toUpperCase(), concrete(route.path));
      assert.notEqual(reply.status, 401, route.path);
    }
    assert.match(
      server.logs[0],
      /^info: reactive-model-service \S+ listening on http:\/\/127\.0\.0\.1:\d+ \(storage: memory; auth: open\)$/,
    );
    assert.match(server.logs[1], /^warning: open mode: svc\.api\.key is not set/);
    assert.doesNotMatch(server.logs[1], /reachable/);
  } finally {
    await server.close();
  }
});

Deno.test("open mode on every interface: the startup warning says the server is reachable from the network", async () => {
  const server = await startTestServer({ "svc.host": "0.0.0.0" });
  try {
    const warning = server.logs.find((line) => line.startsWith("warning: open mode"));
    const remote = `http://${Deno.hostname()}:${server.port}`;
    assert.ok(warning?.endsWith(`; ${remote} is reachable from the network, set SVC_API_KEY`), warning);
    // http://0.0.0.0:… is no address a client can use: the line names one that is, and says it listens on all.
    assert.equal(server.url, `http://127.0.0.1:${server.port}`);
    assert.ok(
      server.logs[0].includes(
        `listening on ${server.url} on every interface (0.0.0.0; from other machines ${remote}) (storage: memory;`,
      ),
      server.logs[0],
    );
    assert.equal((await fetch(`${server.url}/actuator/health`)).status, 200);
  } finally {
    await server.close();
  }
});

Deno.test("svc serve: --config file plus environment, startup line, graceful SIGTERM, key never logged", async () => {
  const key = "Sup3r-Secret-Key-77";
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/svc.yaml`;
    await Deno.writeTextFile(
      file,
      `svc:\n  host: 127.0.0.1\n  port: 1\n  api:\n    key: ${key}\n  http:\n    access-log: true\n`,
    );
    const server = await spawnServe({
      env: { SVC_PERSISTENCE_DIR: `${dir}/data` },
      args: ["--config", file],
    });
    const url = server.url;
    try {
      assert.ok(url, "startup line printed");
      const auth = { authorization: `Bearer ${key}` };
      assert.equal((await call(url, "POST", "/models", orderSpec(), auth)).status, 201);
      const wrong = await call(url, "GET", "/models", undefined, { authorization: `Bearer ${key}x` });
      assert.equal(wrong.status, 401);
      assert.equal((await call(url, "GET", `/models/order/subscribe?token=${key}`)).status, 426);
      assert.equal((await call(url, "POST", "/models/order/mutations", "{bad", auth)).status, 400);
    } catch (err) {
      await server.stop();
      throw err;
    }
    const { code, stdout, stderr } = await server.stop();
    assert.equal(code, 0, stderr);
    assert.match(
      stdout,
      /listening on http:\/\/127\.0\.0\.1:\d+ \(storage: kv \(.*svc\.kv\); auth: API key\)/,
    );
    assert.match(stdout, /GET \/models\/order\/subscribe\?token=\*\*\* 426/);
    assert.match(stdout, /shutting down/);
    assert.ok(!stdout.includes(key) && !stderr.includes(key), "the key never appears in the output");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("svc serve: a malformed setting aborts startup with a clear message", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI_MAIN, "serve"],
    env: { SVC_PORT: "eighty", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  });
  const { code, stderr } = await child.output();
  assert.equal(code, 1);
  assert.match(new TextDecoder().decode(stderr), /svc\.port \(SVC_PORT\) must be an integer, got 'eighty'/);
});
