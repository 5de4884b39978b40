/**
 * Server configuration: defaults, environment variables, JSON and YAML files
 * (`--config`), the environment winning over the file, and clear errors.
 */
import assert from "node:assert/strict";
import { flattenConfig, loadConfig, readSize, serverConfig } from "../../server/config.ts";
import { originAllowed } from "../../server/routes/subscribe.ts";
import { openStorage, selectStorage } from "../../server/stores/mod.ts";

Deno.test("defaults follow SPEC.md", () => {
  const config = serverConfig(() => undefined);
  assert.equal(config.port, 8080);
  assert.equal(config.apiKey, null);
  assert.equal(config.contentSecurityPolicy, "default-src 'none'; frame-ancestors 'none'");
  assert.deepEqual(config.rateLimit, {
    enabled: false,
    requests: 100,
    windowSeconds: 60,
    trustForwardedFor: false,
  });
  assert.deepEqual(config.bodyLimits, {
    multipartFileBytes: 50 * 1024 * 1024,
    multipartRequestBytes: 55 * 1024 * 1024,
    otherBytes: 10 * 1024 * 1024,
  });
  assert.equal(config.websocketAllowedOrigins, null);
  assert.deepEqual(config.mcpAllowedOrigins, []);
  assert.equal(config.mcpMaxSessions, 1000);
});

Deno.test("environment variables set keys; blank key means open mode", async () => {
  const env: Record<string, string> = {
    SVC_PORT: "9090",
    SVC_API_KEY: "  ",
    SVC_RATE_LIMIT_ENABLED: "true",
    SVC_RATE_LIMIT_WINDOW_SECONDS: "5",
    SVC_WEBSOCKET_ALLOWED_ORIGINS: "https://a.example, https://b.example",
    SVC_MAX_MODELS: "7",
  };
  const config = await loadConfig([], (name) => env[name]);
  assert.equal(config.server.port, 9090);
  assert.equal(config.server.apiKey, null);
  assert.equal(config.server.rateLimit.enabled, true);
  assert.equal(config.server.rateLimit.windowSeconds, 5);
  assert.deepEqual(config.server.websocketAllowedOrigins, ["https://a.example", "https://b.example"]);
  assert.equal(config.engine.maxModels, 7);
  assert.equal(config.lookup("svc.max-models"), "7");
});

Deno.test("a YAML or JSON config file, nested or dotted; the environment wins", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const yaml = `${dir}/svc.yaml`;
    await Deno.writeTextFile(
      yaml,
      "svc:\n  port: 7070\n  api.key: from-file\n  rate-limit:\n    requests: 5\n  mcp:\n    allowed-origins:\n      - https://x.example\n      - https://y.example\n",
    );
    const fromFile = await loadConfig(["--config", yaml], () => undefined);
    assert.equal(fromFile.server.port, 7070);
    assert.equal(fromFile.server.apiKey, "from-file");
    assert.equal(fromFile.server.rateLimit.requests, 5);
    assert.deepEqual(fromFile.server.mcpAllowedOrigins, ["https://x.example", "https://y.example"]);
    assert.equal(fromFile.source, `${yaml} + environment`);

    const overridden = await loadConfig(
      [`--config=${yaml}`],
      (name) => name === "SVC_PORT" ? "6060" : undefined,
    );
    assert.equal(overridden.server.port, 6060);
    assert.equal(overridden.server.apiKey, "from-file");

    const json = `${dir}/svc.json`;
    await Deno.writeTextFile(
      json,
      JSON.stringify({ "svc.max-models": 3, "svc": { "history": { "max-entries": 0 } } }),
    );
    const fromJson = await loadConfig(["--config", json], () => undefined);
    assert.equal(fromJson.engine.maxModels, 3);
    assert.equal(fromJson.engine.historyMaxEntries, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("malformed configuration fails with the key and its variable named", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(loadConfig(["--config", `${dir}/missing.yaml`], () => undefined), /cannot be read/);
    await Deno.writeTextFile(`${dir}/bad.json`, "{");
    await assert.rejects(loadConfig(["--config", `${dir}/bad.json`], () => undefined), /not valid JSON/);
    await Deno.writeTextFile(`${dir}/list.yaml`, "- a\n- b\n");
    await assert.rejects(
      loadConfig(["--config", `${dir}/list.yaml`], () => undefined),
      /mapping of svc\.\* keys/,
    );
    await assert.rejects(loadConfig(["--config"], () => undefined), /--config needs a file name/);
    await assert.rejects(
      loadConfig([], (n) => n === "SVC_RATE_LIMIT_REQUESTS" ? "0" : undefined),
      /svc\.rate-limit\.requests \(SVC_RATE_LIMIT_REQUESTS\) must be at least 1/,
    );
    await assert.rejects(loadConfig([], (n) => n === "SVC_PORT" ? "70000" : undefined), /0\.\.65535/);
    await assert.rejects(
      loadConfig([], (n) => n === "SVC_MCP_MAX_SESSIONS" ? "0" : undefined),
      /svc\.mcp\.max-sessions \(SVC_MCP_MAX_SESSIONS\) must be at least 1/,
    );
    await assert.rejects(
      loadConfig([], (n) => n === "SVC_API_KEY" ? "two words" : undefined),
      (err: Error) => /must not contain whitespace/.test(err.message) && !err.message.includes("two words"),
    );
    // A non-ASCII key could never match: the Authorization header carries Latin-1 bytes.
    for (const key of ["clé-secrète", "key\u0000nul", "ключ"]) {
      await assert.rejects(
        loadConfig([], (n) => n === "SVC_API_KEY" ? key : undefined),
        (err: Error) => /must be printable ASCII/.test(err.message) && !err.message.includes(key),
      );
    }
    // The session token prefix would make the gate treat the key as an unknown session's token.
    await assert.rejects(
      loadConfig([], (n) => n === "SVC_API_KEY" ? "svcs_operatorkey" : undefined),
      (err: Error) => /must not start with 'svcs_'/.test(err.message) && !err.message.includes("operatorkey"),
    );
    assert.equal(
      (await loadConfig([], (n) => n === "SVC_API_KEY" ? "Svcs_OK~key!" : undefined)).server.apiKey,
      "Svcs_OK~key!",
    );
    await assert.rejects(
      loadConfig([], (n) => n === "SVC_HTTP_MAX_BODY_SIZE" ? "lots" : undefined),
      /svc\.http\.max-body-size \(SVC_HTTP_MAX_BODY_SIZE\) must be a size/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sizes and flattening", () => {
  const lookup = (value: string) => () => value;
  assert.equal(readSize(lookup("1024"), "k", 0), 1024);
  assert.equal(readSize(lookup("50MB"), "k", 0), 52_428_800);
  assert.equal(readSize(lookup("2 kb"), "k", 0), 2048);
  assert.deepEqual(
    [...flattenConfig({ svc: { a: { b: true, c: [1, 2] } }, "svc.d": "x" }, "f")],
    [["svc.a.b", "true"], ["svc.a.c", "1,2"], ["svc.d", "x"]],
  );
  assert.throws(() => flattenConfig({ other: 1 }, "f.yaml"), /key 'other' is not an svc\.\* key/);
});

Deno.test("svc.security.csp that no response header can carry aborts startup naming the key", async () => {
  // Accepted before, then every response failed (500) with a stack trace in the log.
  for (
    const csp of [
      "default-src 'none';\nframe-ancestors 'none'",
      "default-src 'none'; report-uri https://→.example",
    ]
  ) {
    await assert.rejects(
      loadConfig([], (n) => n === "SVC_SECURITY_CSP" ? csp : undefined),
      /svc\.security\.csp \(SVC_SECURITY_CSP\) must be one line of header text/,
    );
  }
  const config = await loadConfig([], (n) => n === "SVC_SECURITY_CSP" ? "  default-src 'self'  " : undefined);
  assert.equal(config.server.contentSecurityPolicy, "default-src 'self'");
});

Deno.test("allowed origins are kept as a browser's Origin header writes them; a non-origin aborts", async () => {
  const env = (value: string) => (n: string) => n === "SVC_WEBSOCKET_ALLOWED_ORIGINS" ? value : undefined;
  // Copied from an address bar: a trailing slash, capitals, the default port.
  const config = await loadConfig(
    [],
    env("https://App.Example.com/, http://localhost:5173, https://x.example:443, *"),
  );
  const listed = config.server.websocketAllowedOrigins;
  assert.deepEqual(listed, ["https://app.example.com", "http://localhost:5173", "https://x.example", "*"]);
  // The handshake compares the header exactly: it was refused (403) with the slash before.
  const slash = (await loadConfig([], env("https://app.example.com/"))).server.websocketAllowedOrigins;
  assert.ok(originAllowed("https://app.example.com", { hostname: "0.0.0.0", port: 8080 }, slash));
  const bads = [
    '["https://app.example.com"]',
    "app.example.com",
    "https://app.example.com/app",
    "https://u@app.example.com",
  ];
  for (const bad of bads) {
    await assert.rejects(
      loadConfig([], env(bad)),
      /svc\.websocket\.allowed-origins \(SVC_WEBSOCKET_ALLOWED_ORIGINS\) lists .* not an origin: write scheme:\/\/host\[:port\]/,
    );
  }
  const cors = await loadConfig(
    [],
    (n) => n === "SVC_HTTP_CORS_ALLOWED_ORIGINS" ? "https://A.example/" : undefined,
  );
  assert.deepEqual(cors.server.corsAllowedOrigins, ["https://a.example"]);
  await assert.rejects(
    loadConfig([], (n) => n === "SVC_MCP_ALLOWED_ORIGINS" ? "localhost:3000" : undefined),
    /svc\.mcp\.allowed-origins \(SVC_MCP_ALLOWED_ORIGINS\) lists 'localhost:3000'/,
  );
});

Deno.test("svc.audit.accept-unsigned-heads takes head hashes only; anything else aborts naming the key", async () => {
  const env = (value: string) => (n: string) => n === "SVC_AUDIT_ACCEPT_UNSIGNED_HEADS" ? value : undefined;
  const head = "ab".repeat(32);
  assert.deepEqual(
    (await loadConfig([], env(` ${head} , ${"0".repeat(64)}`))).server.auditAcceptUnsignedHeads,
    [head, "0".repeat(64)],
  );
  // A sequence number, a hash cut short or copied upper-cased, a JSON array: none could match a head.
  for (const bad of ["7", head.slice(0, 12), head.toUpperCase(), `["${head}"]`, "x".repeat(5000)]) {
    await assert.rejects(
      loadConfig([], env(`${head},${bad}`)),
      (err: Error) =>
        err.message.startsWith(
          "Configuration svc.audit.accept-unsigned-heads (SVC_AUDIT_ACCEPT_UNSIGNED_HEADS) lists '" +
            bad.slice(0, 200),
        ) && /which is not an audit head hash/.test(err.message) && err.message.length < 600,
    );
  }
});

Deno.test("an unparsable svc.storage.postgres.url names the key and never echoes the password", async () => {
  const env: Record<string, string> = {
    "svc.storage.type": "postgres",
    "svc.storage.postgres.url": "postgres://app:s3cretpw@db.internal:notaport/models",
  };
  await assert.rejects(
    openStorage((key) => env[key], () => {}),
    (err: Error) =>
      /svc\.storage\.postgres\.url \(SVC_STORAGE_POSTGRES_URL\) is not a URL/.test(err.message) &&
      !err.message.includes("s3cretpw"),
  );
});

Deno.test("a huge malformed value is quoted cut short, not echoed whole", async () => {
  // An environment variable may hold 128 kB: the startup error printed all of it on one line.
  const huge = "9".repeat(100_000) + "x";
  for (
    const name of [
      "SVC_MAX_MODELS",
      "SVC_HTTP_MAX_BODY_SIZE",
      "SVC_RATE_LIMIT_ENABLED",
      "SVC_EFFECTS_MAX_RESPONSE_BYTES",
    ]
  ) {
    await assert.rejects(
      loadConfig([], (n) => n === name ? huge : undefined),
      (err: Error) =>
        err.message.includes(name) && err.message.length < 500 && /\(100001 characters\)/.test(err.message),
    );
  }
  assert.throws(
    () => selectStorage((key) => key === "svc.storage.type" ? huge : undefined),
    (err: Error) => err.message.includes("SVC_STORAGE_TYPE") && err.message.length < 500,
  );
});

Deno.test("an integer past 2^53 aborts startup instead of standing in for 'unlimited'", async () => {
  // 1e20 passed as an integer: a lease of 1e20 ms overflows the jobs table's bigint once a job is claimed.
  for (
    const name of [
      "SVC_PAIRING_EXPIRES_IN_SECONDS",
      "SVC_BLOB_MAX_TOTAL_BYTES",
      "SVC_EFFECTS_MAX_RESPONSE_BYTES",
    ]
  ) {
    await assert.rejects(
      loadConfig([], (n) => n === name ? "1e20" : undefined),
      new RegExp(`\\(${name}\\) must be`),
    );
  }
  assert.throws(
    () =>
      selectStorage((key) =>
        key === "svc.storage.postgres.job-lease-ms" ? "100000000000000000000" : undefined
      ),
    /\(SVC_STORAGE_POSTGRES_JOB_LEASE_MS\) must be an integer of at most 9007199254740991/,
  );
  assert.equal(
    (await loadConfig([], (n) => n === "SVC_BLOB_MAX_TOTAL_BYTES" ? "9007199254740991" : undefined))
      .engine.blobMaxTotalBytes,
    Number.MAX_SAFE_INTEGER,
  );
});

Deno.test("an integer key written 1e3, 0x10 or 12.0 aborts startup instead of being read as a number", async () => {
  // SVC_RATE_LIMIT_REQUESTS=1e3 was a silent 1000 (Number() reads exponents, hex and fractions).
  for (
    const [name, raw] of [
      ["SVC_RATE_LIMIT_REQUESTS", "1e3"],
      ["SVC_PORT", "0x1F90"],
      ["SVC_MAX_MODELS", "12.0"],
      ["SVC_EFFECTS_MAX_RESPONSE_BYTES", "1e3"],
      ["SVC_EFFECTS_MAX_RESPONSE_BYTES", "0x10"],
      ["SVC_LLM_TIMEOUT_MS", "1e4"],
    ]
  ) {
    await assert.rejects(
      loadConfig([], (n) => n === name ? raw : undefined),
      { message: new RegExp(`\\(${name}\\) must be an integer, got '${raw.replace(".", "\\.")}'$`) },
      name,
    );
  }
  assert.throws(
    () => selectStorage((key) => key === "svc.storage.compaction-threshold" ? "1e2" : undefined),
    /\(SVC_STORAGE_COMPACTION_THRESHOLD\) must be an integer, got '1e2'/,
  );
  await assert.rejects(
    loadConfig([], (n) => n === "SVC_EFFECTS_MAX_RESPONSE_BYTES" ? "0" : undefined),
    /svc\.effects\.max-response-bytes \(SVC_EFFECTS_MAX_RESPONSE_BYTES\) must be at least 1, got 0/,
  );
  const plain = await loadConfig([], (n) => n === "SVC_EFFECTS_MAX_RESPONSE_BYTES" ? " 2048 " : undefined);
  assert.equal(plain.effects.maxResponseBytes, 2048);
});

Deno.test("a storage key no chosen backend reads is a warning, not silently dropped", async () => {
  // SVC_STORAGE_POSTGRES_URL without SVC_STORAGE_TYPE=postgres: the server ran on its local store, saying nothing.
  const keys: Record<string, string> = {
    "svc.storage.type": "memory",
    "svc.storage.postgres.url": "postgres://app:s3cretpw@db.internal:5432/models",
    "svc.blob-store-path": "/srv/blobs",
    "svc.persistence-dir": "/srv/data",
  };
  const warnings: string[] = [];
  const storage = await openStorage((key) => keys[key], (line) => warnings.push(line));
  await storage.store.close();
  await storage.blobs.close();
  assert.deepEqual(warnings, [
    "svc.storage.postgres.url (SVC_STORAGE_POSTGRES_URL) is set but ignored: no store is postgres (storage: memory)",
    "svc.blob-store-path (SVC_BLOB_STORE_PATH) is set but ignored: no store is filesystem blobs (storage: memory)",
    "svc.persistence-dir (SVC_PERSISTENCE_DIR) is set but ignored: no store is kv or filesystem (storage: memory)",
  ]);
  const used: string[] = [];
  const memory = await openStorage(
    (key) => key === "svc.storage.type" ? "memory" : undefined,
    (l) => used.push(l),
  );
  await memory.store.close();
  assert.deepEqual(used, []);
});

Deno.test("a long storage path is quoted cut short on the startup line, as in every configuration message", async () => {
  const root = await Deno.makeTempDir();
  const dir = `${root}/${"p".repeat(200)}/${"q".repeat(200)}`;
  try {
    const keys: Record<string, string> = { "svc.storage.type": "filesystem", "svc.persistence-dir": dir };
    const storage = await openStorage((key) => keys[key], () => {});
    await storage.store.close();
    await storage.blobs.close();
    const cut = (path: string) => `${path.slice(0, 200)}… (${path.length} characters)`;
    // The models' directory, then the blobs' (beside them by default).
    assert.equal(storage.description, `filesystem (${cut(dir)}, ${cut(`${dir}/blobs`)})`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a server key whose switch is off is a warning: a request limit without the limiter", async () => {
  const env: Record<string, string> = {
    SVC_RATE_LIMIT_REQUESTS: "50",
    SVC_PAIRING_ENABLED: "false",
    SVC_PAIRING_EXPIRES_IN_SECONDS: "60",
    SVC_AUDIT_ACCEPT_UNSIGNED_HEADS: "0".repeat(64),
  };
  const config = await loadConfig([], (n) => env[n], Object.keys(env));
  assert.deepEqual(config.warnings, [
    "svc.rate-limit.requests (SVC_RATE_LIMIT_REQUESTS) is set but ignored: svc.rate-limit.enabled is not true",
    "svc.pairing.expires-in-seconds (SVC_PAIRING_EXPIRES_IN_SECONDS) is set but ignored: svc.pairing.enabled is false",
    "svc.audit.accept-unsigned-heads (SVC_AUDIT_ACCEPT_UNSIGNED_HEADS) is set but ignored: " +
    "without svc.audit.signing-key no write signs over a head",
  ]);
  const on = await loadConfig([], (n) => n === "SVC_RATE_LIMIT_ENABLED" ? "true" : env[n], [
    "SVC_RATE_LIMIT_ENABLED",
    "SVC_RATE_LIMIT_REQUESTS",
  ]);
  assert.equal(on.warnings.filter((w) => w.includes("rate-limit")).length, 0);
});
