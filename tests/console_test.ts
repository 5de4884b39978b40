/**
 * The console protocol: in-process through handleConsoleLine/runConsole, and as
 * the real `cli/main.ts console` child process speaking over stdin/stdout.
 */
import assert from "node:assert/strict";
import { type ConsoleReply, handleConsoleLine, runConsole } from "../cli/console.ts";
import { ModelService } from "../engine/service/service.ts";
import type { ModelApi } from "../engine/service/api.ts";
import { LIBRARY_EXPORTS, librarySpec } from "./server/helpers.ts";

const ROOT = new URL("..", import.meta.url);

const ORDER = {
  id: "shop/order",
  schema: {
    type: "object",
    properties: {
      qty: { type: "integer", minimum: 0 },
      price: { type: "number" },
      note: { type: "string" },
      attachment: { type: "object" },
    },
  },
  derivations: [{ path: "$.total", expr: "qty * price" }],
  constraints: [
    { id: "cap", expr: "$not(total > 100)", message: "total must not exceed 100", policy: "rollback" },
    { id: "qtyCap", expr: "$not(qty > 50)", message: "qty must not exceed 50", policy: "rollback" },
  ],
};

/** Sends one request object (or raw line) to a fresh or given service; returns the reply. */
async function send(service: ModelApi, request: unknown): Promise<ConsoleReply> {
  const line = typeof request === "string" ? request : JSON.stringify(request);
  return (await handleConsoleLine(service, line)).reply;
}

async function ok(service: ModelApi, request: Record<string, unknown>): Promise<unknown> {
  const reply = await send(service, request);
  assert.ok(reply.ok, `${request.cmd} failed: ${!reply.ok && reply.error}`);
  return reply.result;
}

async function fails(service: ModelApi, request: unknown): Promise<string> {
  const reply = await send(service, request);
  assert.equal(reply.ok, false, `expected a failure, got ${JSON.stringify(reply)}`);
  return (reply as { error: string }).error;
}

async function withOrder(): Promise<ModelService> {
  const service = await ModelService.open();
  await ok(service, { cmd: "create-model", spec: ORDER });
  return service;
}

Deno.test("console: create answers {id, status:'created'}; a duplicate fails with a conflict message", async () => {
  const service = await ModelService.open();
  assert.deepEqual(await send(service, { cmd: "create-model", spec: ORDER }), {
    ok: true,
    result: { id: "shop/order", status: "created" },
  });
  assert.match(
    await fails(service, { cmd: "create-model", spec: ORDER }),
    /Model 'shop\/order' already exists/,
  );
  assert.deepEqual(await ok(service, { cmd: "list-models" }), ["shop/order"]);
});

Deno.test("console: an invalid spec fails with every finding and its location", async () => {
  const service = await ModelService.open();
  const error = await fails(service, {
    cmd: "create-model",
    spec: { id: "bad@id", schema: {}, derivations: [{ path: "$.items.0.x", expr: "1" }] },
  });
  assert.match(error, /^Spec validation failed: /);
  assert.match(error, /id: 'bad@id' is not a valid id/);
  assert.match(error, /derivations\[0\]\.path: .*'\$\.items\[0\]\.x'/);
});

Deno.test("console: mutate answers the full mutation result", async () => {
  const service = await withOrder();
  const result = await ok(service, {
    cmd: "mutate",
    id: "shop/order",
    mutations: { "$.qty": 2, "$.price": 5 },
  });
  assert.deepEqual(result, {
    success: true,
    mutatedPaths: ["$.qty", "$.price"],
    derivedUpdated: ["$.total"],
    metaUpdated: [],
    flaggedConstraints: [],
    dispatchedEffects: [],
    traces: (result as { traces: unknown[] }).traces,
  });
  assert.equal((result as { traces: unknown[] }).traces.length, 3);
  const patched = await ok(service, {
    cmd: "patch-mutate",
    id: "shop/order",
    patch: [{ op: "replace", path: "/qty", value: 3 }],
  }) as { derivedUpdated: string[] };
  assert.deepEqual(patched.derivedUpdated, ["$.total"]);
});

Deno.test("console: a rollback names the violated constraints' messages", async () => {
  const service = await withOrder();
  await ok(service, { cmd: "mutate", id: "shop/order", mutations: { "$.qty": 2, "$.price": 5 } });
  assert.equal(
    await fails(service, { cmd: "mutate", id: "shop/order", mutations: { "$.price": 60 } }),
    "Constraint violated: total must not exceed 100",
  );
  assert.equal(
    await fails(service, { cmd: "mutate", id: "shop/order", mutations: { "$.qty": 60 } }),
    "2 constraints violated: [total must not exceed 100, qty must not exceed 50]",
  );
  assert.equal(await ok(service, { cmd: "get-field", id: "shop/order", path: "$.total" }), 10);
});

Deno.test("console: a schema violation names the path and the keyword", async () => {
  const service = await withOrder();
  const error = await fails(service, { cmd: "mutate", id: "shop/order", mutations: { "$.qty": -1 } });
  assert.match(error, /^Schema violation: \$\.qty \(minimum\): must be >= 0$/);
  const typed = await fails(service, {
    cmd: "patch-mutate",
    id: "shop/order",
    patch: [{ op: "add", path: "/qty", value: "many" }],
  });
  assert.match(typed, /\$\.qty \(type\)/);
});

Deno.test("console: get-field answers the value, or null for a null or absent field", async () => {
  const service = await withOrder();
  await ok(service, {
    cmd: "mutate",
    id: "shop/order",
    mutations: { "$.qty": 2, "$.price": 5, "$.note": "hi" },
  });
  assert.deepEqual(await send(service, { cmd: "get-field", id: "shop/order", path: "$.total" }), {
    ok: true,
    result: 10,
  });
  assert.deepEqual(await send(service, { cmd: "get-field", id: "shop/order", path: "$.note" }), {
    ok: true,
    result: "hi",
  });
  assert.deepEqual(await send(service, { cmd: "get-field", id: "shop/order", path: "$.nothing" }), {
    ok: true,
    result: null,
  });
  assert.match(
    await fails(service, { cmd: "get-field", id: "missing", path: "$.a" }),
    /Model 'missing' not found/,
  );
});

Deno.test("console: snapshot / restore answers {restored:true}; delete answers {deleted:true}", async () => {
  const service = await withOrder();
  await ok(service, { cmd: "mutate", id: "shop/order", mutations: { "$.qty": 1, "$.price": 1 } });
  const snapshot = await ok(service, { cmd: "snapshot", id: "shop/order" });
  await ok(service, { cmd: "mutate", id: "shop/order", mutations: { "$.qty": 9 } });
  assert.deepEqual(await send(service, { cmd: "restore", id: "shop/order", snapshot }), {
    ok: true,
    result: { restored: true },
  });
  assert.deepEqual(await ok(service, { cmd: "get-state", id: "shop/order" }), { qty: 1, price: 1, total: 1 });
  assert.deepEqual(await send(service, { cmd: "delete-model", id: "shop/order" }), {
    ok: true,
    result: { deleted: true },
  });
  assert.match(await fails(service, { cmd: "get-state", id: "shop/order" }), /not found/);
});

Deno.test("console: upload-blob answers a BlobRef; get-blob answers {blobId, data} in base64", async () => {
  const service = await withOrder();
  const data = btoa("binary\u0000data");
  const ref = await ok(service, {
    cmd: "upload-blob",
    data,
    mediaType: "application/octet-stream",
  }) as Record<
    string,
    unknown
  >;
  assert.match(ref.$blobId as string, /^[0-9a-f]{64}$/);
  assert.equal(ref.$bytes, 11);
  assert.equal(ref.$mediaType, "application/octet-stream");
  const blob = await ok(service, { cmd: "get-blob", blobId: ref.$blobId }) as Record<string, unknown>;
  assert.equal(blob.blobId, ref.$blobId);
  assert.equal(blob.data, data);
  await ok(service, { cmd: "mutate", id: "shop/order", mutations: { "$.attachment": ref } });
  const viaModel = await ok(service, { cmd: "get-model-blob", id: "shop/order", blobId: ref.$blobId });
  assert.equal((viaModel as { data: string }).data, data);
  assert.match(await fails(service, { cmd: "get-blob", blobId: "f".repeat(64) }), /not found/);
});

Deno.test("console: protocol errors: invalid JSON, non-object, unknown command, missing argument", async () => {
  const service = await ModelService.open();
  assert.match(await fails(service, "{not json"), /^Invalid JSON: /);
  assert.match(await fails(service, "[1,2]"), /expected a JSON object with a 'cmd' field/);
  assert.equal(await fails(service, { id: "x" }), "Missing required field: 'cmd'");
  assert.equal(await fails(service, { cmd: 5 }), "Invalid field 'cmd': expected string");
  // help and exit take no arguments: a stray one is refused as any command's is, and exit does not exit.
  assert.equal(
    await fails(service, { cmd: "help", verbose: true }),
    "Unknown argument 'verbose' for help; expected: none",
  );
  const stray = await handleConsoleLine(service, '{"cmd":"exit","now":1}');
  assert.deepEqual(stray, {
    reply: { ok: false, error: "Unknown argument 'now' for exit; expected: none" },
    exit: false,
  });
  assert.deepEqual(await handleConsoleLine(service, '{"cmd":"exit","now":null}'), {
    reply: { ok: true, result: "bye" },
    exit: true,
  });
  assert.equal(
    await fails(service, { cmd: "fly" }),
    `Unknown command: 'fly'. Send {"cmd":"help"} to list commands.`,
  );
  assert.equal(await fails(service, { cmd: "get-state" }), "Missing required field: 'id' (expected string)");
  assert.equal(
    await fails(service, { cmd: "get-field", id: "x" }),
    "Missing required field: 'path' (expected string)",
  );
  assert.equal(
    await fails(service, { cmd: "create-model" }),
    "Missing required field: 'spec'",
  );
  assert.match(
    await fails(service, { cmd: "mutate", id: "x", mutations: "no" }),
    /Invalid field 'mutations'/,
  );
});

Deno.test("console: an unknown argument is refused as MCP refuses it, and the command does not run", async () => {
  const service = await withOrder();
  assert.equal(
    await fails(service, { cmd: "mutate", id: "shop/order", mutations: { "$.qty": 1 }, bogus: 1 }),
    "Unknown argument 'bogus' for mutate; expected: id, mutations",
  );
  // includeTraces is an MCP argument of the operation, not one of the console command's.
  assert.match(
    await fails(service, { cmd: "mutate", id: "shop/order", mutations: { "$.qty": 1 }, includeTraces: true }),
    /^Unknown argument 'includeTraces' for mutate/,
  );
  assert.deepEqual(await ok(service, { cmd: "get-state", id: "shop/order" }), {}, "nothing was written");
  assert.equal(
    await fails(service, { cmd: "list-models", verbose: true }),
    "Unknown argument 'verbose' for list-models; expected: none",
  );
  // null counts as absent, as everywhere.
  assert.deepEqual(await ok(service, { cmd: "list-models", verbose: null }), ["shop/order"]);
});

Deno.test("console: hostile lines: scalars, prototype names, __proto__ keys, 1e309, deep nesting; nothing written", async () => {
  const service = await withOrder();
  await ok(service, { cmd: "mutate", id: "shop/order", mutations: { "$.qty": 2 } });
  for (const line of ["null", "5", '"mutate"', "true"]) {
    assert.equal(
      await fails(service, line),
      "Invalid request: expected a JSON object with a 'cmd' field",
      line,
    );
  }
  assert.equal(await fails(service, '{"__proto__":{"cmd":"list-models"}}'), "Missing required field: 'cmd'");
  for (const cmd of ["__proto__", "constructor", "toString"]) {
    assert.match(await fails(service, { cmd }), new RegExp(`^Unknown command: '${cmd}'`));
  }
  assert.equal(
    await fails(service, '{"cmd":"get-state","id":"shop/order","__proto__":{"id":"x"}}'),
    "Unknown argument '__proto__' for get-state; expected: id, at",
  );
  // A __proto__ mutation key is no address: refused as a whole, not dropped while the rest commits.
  for (const mutations of ['{"__proto__":{"qty":9}}', '{"$.qty":9,"__proto__":{"qty":9}}']) {
    assert.match(
      await fails(service, `{"cmd":"mutate","id":"shop/order","mutations":${mutations}}`),
      /^Invalid mutation path: '__proto__'/,
      mutations,
    );
  }
  assert.match(
    await fails(service, '{"cmd":"mutate","id":"shop/order","mutations":{"$.qty":1e309}}'),
    /finite number/,
  );
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  assert.match(
    await fails(service, `{"cmd":"mutate","id":"shop/order","mutations":{"$.note":${deep}}}`),
    /nested deeper than svc\.limits\.max-depth/,
  );
  assert.deepEqual(
    await ok(service, { cmd: "get-state", id: "shop/order" }),
    { qty: 2 },
    "nothing else was written",
  );
});

Deno.test("runConsole: thousands of garbage lines at once are each answered in order, and the session goes on", async () => {
  const service = await withOrder();
  const garbage = ["{", "[]", '{"cmd":7}', '{"cmd":"nope"}', '{"cmd":"get-state","id":[]}', "\uFFFD\uFFFD"];
  async function* lines() {
    for (let i = 0; i < 3000; i++) yield garbage[i % garbage.length];
    yield '{"cmd":"get-state","id":"shop/order"}';
  }
  const written: string[] = [];
  await runConsole(service, lines(), (line) => {
    written.push(line);
    return Promise.resolve();
  });
  assert.equal(written.length, 3001);
  const replies = written.map((line) => JSON.parse(line) as ConsoleReply);
  assert.ok(replies.slice(0, 3000).every((r) => !r.ok && r.error.length > 0));
  assert.equal(
    (replies[3] as { error: string }).error,
    `Unknown command: 'nope'. Send {"cmd":"help"} to list commands.`,
  );
  assert.deepEqual(replies[3000], { ok: true, result: {} });
});

Deno.test("console: help lists every command with its arguments", async () => {
  const service = await ModelService.open();
  const help = await ok(service, { cmd: "help" }) as {
    commands: { cmd: string; required: string[]; optional: string[] }[];
  };
  const byName = new Map(help.commands.map((c) => [c.cmd, c]));
  for (const cmd of ["list-models", "create-model", "mutate", "patch-mutate", "get-field", "help", "exit"]) {
    assert.ok(byName.has(cmd), `help lists ${cmd}`);
  }
  assert.deepEqual(byName.get("get-field")!.required, ["id", "path"]);
  assert.deepEqual(byName.get("get-state")!.optional, ["at"]);
  assert.deepEqual(byName.get("upload-blob")!.required, ["data"]);
});

Deno.test("console: exit answers 'bye' and stops; a leading BOM is tolerated", async () => {
  const service = await ModelService.open();
  assert.deepEqual(await handleConsoleLine(service, '{"cmd":"exit"}'), {
    reply: { ok: true, result: "bye" },
    exit: true,
  });
  assert.deepEqual(await send(service, '\uFEFF{"cmd":"list-models"}'), { ok: true, result: [] });
});

Deno.test("console: get-library reads a model's library; a model without one fails", async () => {
  const service = await withOrder();
  await ok(service, { cmd: "create-model", spec: librarySpec() });
  const library = await ok(service, { cmd: "get-library", id: "priced" }) as { exports: unknown };
  assert.deepEqual(library.exports, LIBRARY_EXPORTS);
  assert.match(await fails(service, { cmd: "get-library", id: "shop/order" }), /has no library/);
  const help = await ok(service, { cmd: "help" });
  assert.match(JSON.stringify(help), /get-library/);
});

Deno.test("runConsole: one compact line per request, blank lines skipped, nothing after exit", async () => {
  const service = await ModelService.open();
  async function* lines() {
    yield '\uFEFF{"cmd":"list-models"}';
    yield "";
    yield "   ";
    yield JSON.stringify({ cmd: "create-model", spec: ORDER });
    yield '{"cmd":"exit"}';
    yield '{"cmd":"list-models"}';
  }
  const written: string[] = [];
  await runConsole(service, lines(), (line) => {
    written.push(line);
    return Promise.resolve();
  });
  assert.deepEqual(written, [
    '{"ok":true,"result":[]}\n',
    '{"ok":true,"result":{"id":"shop/order","status":"created"}}\n',
    '{"ok":true,"result":"bye"}\n',
  ]);
});

Deno.test("runConsole: end of input ends the session", async () => {
  const service = await ModelService.open();
  async function* lines() {
    yield '{"cmd":"list-models"}';
  }
  const written: string[] = [];
  await runConsole(service, lines(), (line) => {
    written.push(line);
    return Promise.resolve();
  });
  assert.deepEqual(written, ['{"ok":true,"result":[]}\n']);
});

Deno.test("console: an unexpected failure is reported as an internal error, not a crash", async () => {
  const broken = { listModels: () => Promise.reject(new TypeError("disk on fire")) } as unknown as ModelApi;
  const seen: unknown[] = [];
  const { reply } = await handleConsoleLine(broken, '{"cmd":"list-models"}', (err) => seen.push(err));
  assert.deepEqual(reply, { ok: false, error: "Internal error: disk on fire" });
  assert.equal(seen.length, 1);
});

// ---------------------------------------------------------------- child process

/** Runs `cli/main.ts console` with `input` on stdin; returns its stdout lines, stderr and exit code. */
async function runCli(
  input: string | Uint8Array,
  closeStdin: boolean,
): Promise<{ lines: string[]; stderr: string; code: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "cli/main.ts", "console"],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(typeof input === "string" ? new TextEncoder().encode(input) : input);
  if (closeStdin) await writer.close();
  const output = await child.output();
  if (!closeStdin) await writer.close().catch(() => {}); // the child already exited: the pipe is gone
  const stdout = new TextDecoder().decode(output.stdout);
  assert.ok(stdout === "" || stdout.endsWith("\n"), "every answer is a whole line");
  return {
    lines: stdout.split("\n").filter((l) => l !== ""),
    stderr: new TextDecoder().decode(output.stderr),
    code: output.code,
  };
}

Deno.test("console process: speaks the protocol on stdout only and exits on 'exit'", async () => {
  const requests = [
    '\uFEFF{"cmd":"list-models"}',
    JSON.stringify({ cmd: "create-model", spec: ORDER }),
    JSON.stringify({ cmd: "mutate", id: "shop/order", mutations: { "$.qty": 3, "$.price": 4 } }),
    JSON.stringify({ cmd: "get-field", id: "shop/order", path: "$.total" }),
    JSON.stringify({ cmd: "mutate", id: "shop/order", mutations: { "$.qty": 30 } }),
    "this is not json",
    '{"cmd":"nope"}',
    '{"cmd":"help"}',
    '{"cmd":"exit"}',
    '{"cmd":"list-models"}',
  ];
  const { lines, code } = await runCli(requests.join("\n") + "\n", false);
  assert.equal(code, 0);
  const replies = lines.map((line) => JSON.parse(line));
  assert.equal(replies.length, 9, "one answer per request up to exit, nothing after");
  for (const line of lines) {
    assert.equal(line, JSON.stringify(JSON.parse(line)), "compact JSON, one object per line");
  }
  assert.deepEqual(replies[0], { ok: true, result: [] });
  assert.deepEqual(replies[1], { ok: true, result: { id: "shop/order", status: "created" } });
  assert.deepEqual(replies[2].result.derivedUpdated, ["$.total"]);
  assert.deepEqual(replies[3], { ok: true, result: 12 });
  assert.deepEqual(replies[4], { ok: false, error: "Constraint violated: total must not exceed 100" });
  assert.equal(replies[5].ok, false);
  assert.match(replies[5].error, /^Invalid JSON/);
  assert.equal(replies[6].error, `Unknown command: 'nope'. Send {"cmd":"help"} to list commands.`);
  assert.ok(Array.isArray(replies[7].result.commands));
  assert.deepEqual(replies[8], { ok: true, result: "bye" });
});

Deno.test("console process: end of input exits cleanly", async () => {
  const { lines, code } = await runCli('{"cmd":"list-models"}\r\n{"cmd":"list-models"}', true);
  assert.equal(code, 0);
  assert.deepEqual(lines, ['{"ok":true,"result":[]}', '{"ok":true,"result":[]}']);
});

Deno.test("console process: invalid UTF-8, an over-long line, blank lines and a burst are each answered; it goes on", async () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const parts = [
    encode(JSON.stringify({ cmd: "create-model", spec: ORDER }) + "\n"),
    new Uint8Array([0xff, 0xfe, 0x00, 0x7b, 0x0a]), // not UTF-8, not JSON
    encode('{"cmd":"get-state","id":"shop/'),
    new Uint8Array([0xc3, 0x28]),
    encode('"}\n'), // a bad sequence inside a string
    encode("\n  \n"),
    encode(`{"cmd":"mutate","id":"shop/order","mutations":{"$.note":"${"x".repeat(10 * 1024 * 1024)}"}}\n`),
    encode('{"cmd":"nope"}\n'.repeat(500)),
    encode('{"cmd":"get-state","id":"shop/order"}\n'),
  ];
  const input = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  parts.reduce((at, p) => (input.set(p, at), at + p.byteLength), 0);
  const { lines, code } = await runCli(input, true);
  assert.equal(code, 0);
  const replies = lines.map((line) => JSON.parse(line));
  assert.equal(replies.length, 1 + 1 + 1 + 1 + 500 + 1, "blank lines skipped, every other line answered");
  assert.match(replies[1].error, /^Invalid JSON/);
  assert.match(replies[2].error, /^Model 'shop\/\uFFFD\(' not found/);
  assert.equal(
    replies[3].error,
    "Line ignored: it is longer than 10485760 bytes, the most one message may have",
  );
  assert.ok(
    replies.slice(4, 504).every((r) =>
      r.error === `Unknown command: 'nope'. Send {"cmd":"help"} to list commands.`
    ),
  );
  assert.deepEqual(replies[504], { ok: true, result: {} }, "the over-long write never ran");
});

Deno.test("console: dry-run refuses a __proto__ mutation key inside a list of mutation maps, as in a single map", async () => {
  const service = await ModelService.open();
  const spec = JSON.stringify(ORDER);
  for (const mutations of ['{"__proto__":{"qty":9}}', '[{"$.qty":1},{"__proto__":{"qty":9}}]']) {
    const error = await fails(service, `{"cmd":"dry-run","spec":${spec},"mutations":${mutations}}`);
    assert.match(error, /^mutations\[\d\]: Invalid mutation path: '__proto__'/, mutations);
  }
});

Deno.test("console: a huge id, command, argument name or mutation key is quoted short in the error", async () => {
  const service = await withOrder();
  const huge = "x".repeat(2_000_000);
  const cut = `${"x".repeat(200)}… (2000000 characters)`;
  assert.equal(await fails(service, { cmd: "get-state", id: huge }), `Model '${cut}' not found`);
  assert.equal(
    await fails(service, { cmd: huge }),
    `Unknown command: '${cut}'. Send {"cmd":"help"} to list commands.`,
  );
  assert.match(
    await fails(service, { cmd: "get-state", id: "shop/order", [huge]: 1 }),
    new RegExp(`^Unknown argument '${cut.replace(/[()]/g, "\\$&")}' for get-state; expected: `),
  );
  const path = await fails(service, { cmd: "mutate", id: "shop/order", mutations: { [huge]: 1 } });
  assert.equal(path, "Invalid mutation path: an address is at most 1024 characters; this one has 2000000");
});

Deno.test("runConsole at a terminal: a banner, a prompt before each command, and a line break at Ctrl-D", async () => {
  const shown: string[] = [];
  const prompt = { banner: "banner", show: (text: string) => Promise.resolve(void shown.push(text)) };
  async function* typed() {
    yield '{"cmd":"list-models"}';
  }
  const service = await ModelService.open();
  try {
    await runConsole(service, typed(), () => Promise.resolve(), undefined, prompt);
  } finally {
    await service.close();
  }
  // The shell's prompt then starts on a line of its own, not after "svc> ".
  assert.deepEqual(shown, ["banner\nsvc> ", "svc> ", "\n"]);
});
