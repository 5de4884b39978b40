/**
 * Where a newcomer gets lost on the server: a typo in an `SVC_*` variable, an
 * unencoded namespaced id in a URL, a port that is already taken.
 */
import assert from "node:assert/strict";
import { nearestName } from "../../engine/nearest.ts";
import { configWarnings } from "../../server/config_keys.ts";
import { call, inProcessServer, spawnServe, startTestServer } from "./helpers.ts";

Deno.test("unknown SVC_* variables are named with the nearest known key; strict mode refuses them", () => {
  const lookup = () => undefined;
  assert.deepEqual(
    configWarnings([], lookup, ["SVC_API_KEYS", "SVC_PROT", "SVC_PORT", "PATH", "SVC_ZZZZZZZZ"]),
    [
      "unknown configuration SVC_API_KEYS is ignored (did you mean SVC_API_KEY?)",
      "unknown configuration SVC_PROT is ignored (did you mean SVC_PORT?)",
      "unknown configuration SVC_ZZZZZZZZ is ignored",
    ],
  );
  assert.deepEqual(configWarnings([], lookup, [], ["svc.rate-limit.enabeld"]), [
    "unknown configuration svc.rate-limit.enabeld is ignored (did you mean svc.rate-limit.enabled?)",
  ]);
  // One line naming each key: the log would print a newline in it as `\n`.
  assert.throws(
    () => configWarnings(["--strict-config"], lookup, ["SVC_PROT", "SVC_API_KEYS"]),
    (err: Error) =>
      /^Unknown configuration \(strict mode[^\n]*SVC_PORT\?\); [^\n]*SVC_API_KEY\?\)$/.test(err.message),
  );
  assert.throws(
    () => configWarnings([], (key) => key === "svc.config.strict" ? "true" : undefined, ["SVC_PROT"]),
    /SVC_PROT/,
  );
  assert.equal(nearestName("SVC_MAX_MODEL", ["SVC_MAX_MODELS", "SVC_PORT"]), "SVC_MAX_MODELS");
});

Deno.test("svc serve warns about a mistyped key at startup, and --strict-config stops it", async () => {
  const warned = await spawnServe({ env: { SVC_API_KEYS: "secret-typo", SVC_STORAGE_TYPE: "memory" } });
  const { stderr } = await warned.stop();
  assert.ok(warned.url, "it still starts");
  assert.match(stderr, /unknown configuration SVC_API_KEYS is ignored \(did you mean SVC_API_KEY\?\)/);
  assert.doesNotMatch(stderr, /secret-typo/, "values are never echoed");

  const strict = await spawnServe({
    env: { SVC_PROT: "9090", SVC_STORAGE_TYPE: "memory" },
    args: ["--strict-config"],
  });
  const stopped = await strict.stop();
  assert.equal(strict.url, undefined);
  assert.equal(stopped.code, 1);
  assert.match(stopped.stderr, /SVC_PROT is ignored \(did you mean SVC_PORT\?\)/);
});

Deno.test("a namespaced id written with a raw slash gets a 404 that says how to encode it", async () => {
  const server = await inProcessServer();
  try {
    const res = await server.app.request("/models/shop/cart/mutations", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(res.status, 404);
    const body = await res.json();
    assert.match(body.detail, /No route for POST \/models\/shop\/cart\/mutations/);
    assert.match(body.detail, /write its '\/' as %2F \(\/models\/shop%2Fcart\/mutations\)/);
    const plain = await (await server.app.request("/nothing/here")).json();
    assert.equal(plain.detail, "No route for GET /nothing/here");
  } finally {
    await server.close();
  }
});

Deno.test("a taken port is reported with the keys that choose another", async () => {
  const first = await startTestServer();
  try {
    const second = await spawnServe({ env: { SVC_PORT: String(first.port), SVC_STORAGE_TYPE: "memory" } });
    const { code, stderr } = await second.stop();
    assert.equal(code, 1);
    assert.match(
      stderr,
      /cannot listen on 127\.0\.0\.1:\d+: .*SVC_PORT \(svc\.port\).*SVC_HOST \(svc\.host\)/,
    );
    assert.equal(
      (await call(first.url, "GET", "/actuator/health")).status,
      200,
      "the first one is untouched",
    );
  } finally {
    await first.close();
  }
});

Deno.test("the catalog of known keys covers every key the configuration readers read", async () => {
  const { engineConfig } = await import("../../engine/config.ts");
  const { serverConfig } = await import("../../server/config.ts");
  const { selectStorage } = await import("../../server/stores/mod.ts");
  const { KNOWN_KEYS } = await import("../../server/config_keys.ts");
  const read = new Set<string>();
  const recording = (key: string) => {
    read.add(key);
    return undefined;
  };
  engineConfig(recording);
  serverConfig(recording);
  selectStorage(recording);
  for (const key of read) assert.ok(KNOWN_KEYS.includes(key), `${key} is read but not catalogued`);
});
