/**
 * Durability of the real server (`svc serve`): a child server process under a
 * stream of mutations is killed with SIGKILL; after a restart on the same
 * persistence directory every acknowledged mutation is there and audit/verify
 * is valid. Also: an unknown storage backend aborts startup with a clear message.
 */
import assert from "node:assert/strict";
import { withTempDir } from "./helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** A running `svc serve` child process. */
interface ServerProcess {
  child: Deno.ChildProcess;
  url: string;
  /** Resolves with everything the process wrote once it has exited. */
  output: Promise<{ stdout: string; stderr: string }>;
}

function spawnServer(env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "cli/main.ts", "serve"],
    cwd: ROOT,
    env: { NO_COLOR: "1", SVC_HOST: "127.0.0.1", SVC_PORT: "0", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function collect(stream: ReadableStream<Uint8Array>, onLine?: (line: string) => void): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let pending = "";
  for await (const bytes of stream) {
    const chunk = decoder.decode(bytes, { stream: true });
    text += chunk;
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) onLine?.(line);
  }
  return text;
}

/** Starts the server and waits for its startup line. */
async function startServer(dir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawnServer({ SVC_PERSISTENCE_DIR: dir, ...env });
  const listening = Promise.withResolvers<string>();
  const stdout = collect(child.stdout, (line) => {
    const match = /listening on (http:\/\/\S+?)[\s(]/.exec(line);
    if (match) listening.resolve(match[1]);
  });
  const stderr = collect(child.stderr);
  const output = Promise.all([stdout, stderr]).then(([stdout, stderr]) => ({ stdout, stderr }));
  child.status.then(() => listening.reject(new Error("the server exited before listening")));
  try {
    return { child, url: await listening.promise, output };
  } catch (err) {
    const { stderr } = await output;
    throw new Error(`${(err as Error).message}: ${stderr}`);
  }
}

async function stopServer(server: ServerProcess, signal: Deno.Signal): Promise<Deno.CommandStatus> {
  server.child.kill(signal);
  const status = await server.child.status;
  await server.output;
  return status;
}

async function request(
  url: string,
  method: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

const SPEC = {
  id: "durable",
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      counters: { type: "object", additionalProperties: { type: "integer" } },
      total: { type: "integer", readOnly: true },
    },
  },
  derivations: [{ path: "$.total", expr: "$sum($each(counters, function($v) { $v }))" }],
};

/**
 * Starts a server over `dir`, has `clients` clients write their own counters
 * 1, 2, 3, ... (client i into model i mod `models`) until `target` writes are
 * acknowledged, kills the server with SIGKILL while every client has a write
 * in flight, restarts it and checks every acknowledged write and each model's
 * audit chain.
 */
async function killUnderLoad(dir: string, models: string[], clients: number, target: number): Promise<void> {
  const first = await startServer(dir);
  for (const id of models) {
    const created = await request(`${first.url}/models`, "POST", { ...SPEC, id });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }
  const modelOf = (client: number) => models[client % models.length];

  // Each client remembers the last value acknowledged to it.
  const acknowledged = new Array<number>(clients).fill(0);
  let stopped = false;
  const enough = Promise.withResolvers<void>();
  const writers = Array.from({ length: clients }, async (_, client) => {
    for (let n = 1; !stopped; n++) {
      try {
        const result = await request(`${first.url}/models/${modelOf(client)}/mutations`, "POST", {
          [`$.counters.c${client}`]: n,
        });
        if (result.status !== 200) {
          throw new Error(`status ${result.status}: ${JSON.stringify(result.body)}`);
        }
        acknowledged[client] = n;
        if (acknowledged.reduce((a, b) => a + b, 0) >= target) enough.resolve();
      } catch (err) {
        if (!stopped) enough.reject(err);
        return;
      }
    }
  });
  await enough.promise;
  // Killed while every client has a request in flight.
  first.child.kill("SIGKILL");
  const status = await first.child.status;
  stopped = true;
  await Promise.all(writers);
  await first.output;
  assert.equal(status.signal, "SIGKILL");

  const second = await startServer(dir);
  try {
    for (const model of models) {
      const state = await request(`${second.url}/models/${model}/state`, "GET");
      assert.equal(state.status, 200);
      const counters = (state.body as { counters?: Record<string, number> }).counters ?? {};
      for (let client = 0; client < clients; client++) {
        if (modelOf(client) !== model) continue;
        const stored = counters[`c${client}`] ?? 0;
        // The request in flight at the kill may or may not have been committed.
        assert.ok(
          stored === acknowledged[client] || stored === acknowledged[client] + 1,
          `${model} c${client}: stored ${stored}, acknowledged ${acknowledged[client]}`,
        );
      }
      const verify = await request(`${second.url}/models/${model}/audit/verify`, "GET");
      assert.equal(verify.status, 200);
      const result = verify.body as { valid: boolean; recordsChecked: number };
      assert.equal(result.valid, true, JSON.stringify(result));
      const committed = Object.values(counters).reduce((a, b) => a + b, 0);
      assert.equal(result.recordsChecked, committed, "one audit record per committed mutation");
    }
    // The restarted server keeps accepting writes on the same chain.
    const after = await request(`${second.url}/models/${models[0]}/mutations`, "POST", {
      "$.counters.c0": 100000,
    });
    assert.equal(after.status, 200);
    const verify = await request(`${second.url}/models/${models[0]}/audit/verify`, "GET");
    assert.equal((verify.body as { valid: boolean }).valid, true);
  } finally {
    await stopServer(second, "SIGTERM");
  }
}

Deno.test("every acknowledged mutation survives kill -9 of the server, and the audit trail verifies", () =>
  withTempDir((dir) => killUnderLoad(dir, ["durable", "second"], 4, 400)));

Deno.test("writes of many models grouped into shared commits survive kill -9 alike", () =>
  // One client per model: every commit in flight belongs to another model, so the
  // group commit batches them (and queues a second batch behind the first).
  withTempDir((dir) => killUnderLoad(dir, Array.from({ length: 12 }, (_, i) => `group-${i}`), 12, 600)));

/**
 * Starts a second server on `dir` and checks that it is refused for the one
 * running there; `holder` is the pattern of what the refusal says of that one.
 */
async function assertRefused(dir: string, env: Record<string, string>, holder: string): Promise<void> {
  const second = spawnServer({ SVC_PERSISTENCE_DIR: dir, ...env });
  const [status, stdout, stderr] = await Promise.all([
    second.status,
    // Without the lock it would listen: stop it so the failure shows instead of a hang.
    collect(second.stdout, (line) => /listening/.test(line) && second.kill("SIGKILL")),
    collect(second.stderr),
  ]);
  assert.doesNotMatch(stdout, /listening/);
  assert.equal(status.code, 1);
  assert.match(
    stderr,
    new RegExp(
      `svc\\.persistence-dir \\(SVC_PERSISTENCE_DIR\\) = '${dir}': the directory is in use by another ` +
        `process${holder}one process per directory`,
    ),
  );
}

for (const storage of ["kv", "filesystem"]) {
  Deno.test(`${storage}: a second server on the same directory is refused; after kill -9 of the first it starts at once`, () =>
    withTempDir(async (dir) => {
      const env = { SVC_STORAGE_TYPE: storage };
      const first = await startServer(dir, env);
      let firstStopped = false;
      try {
        assert.equal((await request(`${first.url}/models`, "POST", SPEC)).status, 201);
        assert.equal(
          (await request(`${first.url}/models/durable/mutations`, "POST", { "$.counters.a": 1 })).status,
          200,
        );

        // Two servers on one directory would overwrite each other's log and audit records.
        await assertRefused(dir, env, ` \\(pid ${first.child.pid}, since [0-9T:.-]+Z\\); `);
        // The lock is the directory's own, not only the file's: a lock file deleted (by hand, by a
        // clean-up job) while the first runs let a second server start and overwrite its commits.
        await Deno.remove(`${dir}/svc.lock`);
        if (storage === "filesystem") await Deno.remove(`${dir}/blobs/svc.lock`); // its blobs' directory
        await assertRefused(dir, env, "; ");
        // The first one is untouched.
        assert.equal(
          (await request(`${first.url}/models/durable/mutations`, "POST", { "$.counters.b": 2 })).status,
          200,
        );

        await stopServer(first, "SIGKILL");
        firstStopped = true;
        const third = await startServer(dir, env);
        try {
          assert.deepEqual((await request(`${third.url}/models/durable/state`, "GET")).body, {
            counters: { a: 1, b: 2 },
            total: 3,
          });
          const verify = (await request(`${third.url}/models/durable/audit/verify`, "GET")).body as {
            valid: boolean;
            recordsChecked: number;
          };
          assert.deepEqual([verify.valid, verify.recordsChecked], [true, 2]);
        } finally {
          await stopServer(third, "SIGTERM");
        }
      } finally {
        if (!firstStopped) await stopServer(first, "SIGTERM");
      }
    }));
}

Deno.test("the server refuses to start with an unknown storage backend", async () => {
  const child = spawnServer({ SVC_STORAGE_TYPE: "bogus" });
  const [status, stdout, stderr] = await Promise.all([
    child.status,
    collect(child.stdout),
    collect(child.stderr),
  ]);
  assert.notEqual(status.code, 0);
  assert.doesNotMatch(stdout, /listening/);
  assert.match(
    stderr,
    /svc\.storage\.type \(SVC_STORAGE_TYPE\) = 'bogus': unknown storage backend; use memory, kv, filesystem or postgres/,
  );
});

/** Runs `command` with `args`; whether it succeeded (absent, it did not). */
function succeeds(command: string, ...args: string[]): boolean {
  try {
    return new Deno.Command(command, { args, stdout: "null", stderr: "null" }).outputSync().success;
  } catch {
    return false;
  }
}

/** Runs `mount` with `args`; whether it succeeded (it needs root, as CI and this machine are). */
const mount = (...args: string[]) => succeeds("mount", ...args);

/** Whether this process may mount a small file system to fill (root may). */
const CAN_MOUNT = Deno.build.os === "linux" && (() => {
  const probe = Deno.makeTempDirSync();
  const mounted = mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", probe);
  if (mounted) new Deno.Command("umount", { args: [probe] }).outputSync();
  Deno.removeSync(probe);
  return mounted;
})();

const NOTES_SPEC = {
  id: "notes",
  schema: {
    type: "object",
    properties: { notes: { type: "object", additionalProperties: { type: "string" } } },
  },
};

/** How each storage's log names the full data directory `dir`, and the words of its full disk. */
const FULL_DISKS = {
  kv: { where: (dir: string) => `kv (${dir}/svc.kv)`, words: "database or disk is full" },
  filesystem: {
    where: (dir: string) => `filesystem (${dir}, ${dir}/blobs)`,
    words: "No space left on device (os error 28)",
  },
};

for (const [storage, disk] of Object.entries(FULL_DISKS)) {
  Deno.test({
    name:
      `${storage}: a full disk answers 503 saying so, logs it once and shows in svc.storage.full; once there is room writes go on, none acknowledged lost`,
    ignore: !CAN_MOUNT,
    fn: () =>
      withTempDir(async (dir) => {
        // A 512 KiB disk of its own: the data directory fills after a few dozen writes.
        assert.ok(mount("-t", "tmpfs", "-o", "size=512k", "tmpfs", dir));
        const env = { SVC_STORAGE_TYPE: storage };
        try {
          const server = await startServer(dir, env);
          let stopped = false;
          let acknowledged = 0;
          try {
            assert.equal((await request(`${server.url}/models`, "POST", NOTES_SPEC)).status, 201);
            const write = (n: number) =>
              fetch(`${server.url}/models/notes/mutations`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                // A new 16 KiB note each time: every write adds to the database.
                body: JSON.stringify({ [`$.notes.n${n}`]: "x".repeat(16 * 1024) }),
              });
            let refused: Response | undefined;
            for (let n = 1; n <= 1000 && !refused; n++) {
              const response = await write(n);
              if (response.status === 200) {
                acknowledged = n;
                await response.body?.cancel();
              } else refused = response;
            }
            assert.ok(refused, "the disk never filled");
            const answer = await refused.json();
            assert.equal(refused.status, 503, JSON.stringify(answer));
            assert.ok(Number(refused.headers.get("retry-after")) > 0);
            assert.equal(
              answer.detail,
              "Storage full: the server's disk has no room left; nothing of this request was stored: " +
                "try again once space is freed",
            );
            // Refused again while full, without another log line.
            assert.equal((await write(acknowledged + 1)).status, 503);
            // A monitoring system sees it too.
            const scrape = async () => (await fetch(`${server.url}/actuator/prometheus`)).text();
            assert.match(await scrape(), /^svc_storage_full 1$/m);
            // Health says so too, with the reason (it stayed UP before).
            const health = await fetch(`${server.url}/actuator/health`);
            assert.equal(health.status, 503);
            assert.deepEqual(await health.json(), {
              status: "DOWN",
              components: {
                storage: {
                  status: "DOWN",
                  details: { reason: "the disk is full: writes are refused" },
                },
              },
            });

            assert.ok(mount("-o", "remount,size=16m", dir));
            const after = await request(`${server.url}/models/notes/mutations`, "POST", {
              "$.notes.last": "",
            });
            assert.equal(after.status, 200, JSON.stringify(after.body));
            assert.match(await scrape(), /^svc_storage_full 0$/m);
            assert.deepEqual(await (await fetch(`${server.url}/actuator/health`)).json(), { status: "UP" });
            await stopServer(server, "SIGTERM");
            stopped = true;
            const { stderr } = await server.output;
            const lines = stderr.split("\n").filter((line) => line.includes(dir))
              // The system's words name the failed call after the error (e.g. "…: write"): not ours to pin.
              .map((line) => line.replace(/(\(os error \d+\))[^)]*\)/, "$1)"));
            assert.deepEqual(lines, [
              `warning: ${disk.where(dir)}: the disk is full (${disk.words}); writes answer 503 ` +
              `until there is room, nothing of a refused write is stored`,
              `warning: ${disk.where(dir)}: writes succeed again`,
            ]);
            assert.doesNotMatch(stderr, /failed:/);
          } finally {
            if (!stopped) await stopServer(server, "SIGTERM");
          }

          const restarted = await startServer(dir, env);
          try {
            const state = await request(`${restarted.url}/models/notes/state`, "GET");
            const notes = (state.body as { notes: Record<string, string> }).notes;
            assert.equal(
              Object.keys(notes).length,
              acknowledged + 1,
              "every acknowledged write, no refused one",
            );
            const verify = await request(`${restarted.url}/models/notes/audit/verify`, "GET");
            assert.deepEqual(
              [
                (verify.body as { valid: boolean }).valid,
                (verify.body as { recordsChecked: number }).recordsChecked,
              ],
              [true, acknowledged + 1],
            );
          } finally {
            await stopServer(restarted, "SIGTERM");
          }
        } finally {
          new Deno.Command("umount", { args: [dir] }).outputSync();
        }
      }),
  });
}

/** Runs `chattr` with `args`; whether it succeeded (root on a file system with the immutable flag). */
const chattr = (...args: string[]) => succeeds("chattr", ...args);

const CAN_CHATTR = Deno.build.os === "linux" && (() => {
  const probe = Deno.makeTempDirSync();
  const flagged = chattr("+i", probe);
  if (flagged) chattr("-i", probe);
  Deno.removeSync(probe);
  return flagged;
})();

Deno.test({
  name:
    "kv: a data directory that cannot be written under a running server answers 503 saying so, logged once, health DOWN",
  // A read-only remount is refused while the database is open for writing: the immutable flag stands in for it.
  ignore: !CAN_CHATTR,
  fn: () =>
    withTempDir(async (dir) => {
      const server = await startServer(dir);
      const files = [dir, `${dir}/svc.kv`, `${dir}/svc.kv-wal`];
      try {
        assert.equal((await request(`${server.url}/models`, "POST", NOTES_SPEC)).status, 201);
        assert.ok(chattr("+i", ...files));
        for (const n of [1, 2]) {
          const refused = await request(`${server.url}/models/notes/mutations`, "POST", {
            [`$.notes.n${n}`]: "x",
          });
          assert.equal(refused.status, 503, JSON.stringify(refused.body));
          assert.match((refused.body as { detail: string }).detail, /^Storage not writable: /);
        }
        const health = await fetch(`${server.url}/actuator/health`);
        assert.equal(health.status, 503);
        assert.match(
          JSON.stringify(await health.json()),
          /the storage cannot be written: writes are refused/,
        );
        assert.ok(chattr("-i", ...files));
        assert.equal(
          (await request(`${server.url}/models/notes/mutations`, "POST", { "$.notes.n3": "x" })).status,
          200,
        );
      } finally {
        chattr("-i", ...files);
        await stopServer(server, "SIGTERM");
      }
      const { stderr } = await server.output;
      const lines = stderr.split("\n").filter((line) => line.includes(dir));
      assert.equal(lines.length, 2, stderr);
      assert.match(lines[0], /: the storage cannot be written \(.*\); writes answer 503 until it is mended/);
      assert.match(lines[1], /: writes succeed again$/);
      assert.doesNotMatch(stderr, /failed:/);
    }),
});
