/**
 * Backend selection from the `svc.storage.*` keys: memory, kv and mixed
 * backends, per-concern fallback, and the startup errors naming key and value.
 */
import assert from "node:assert/strict";
import { MemoryBlobStore, MemoryModelStore } from "../../engine/service/memory.ts";
import { KvBlobStore } from "../../server/stores/kv_blob_store.ts";
import { KvModelStore } from "../../server/stores/kv_model_store.ts";
import { configWarnings } from "../../server/config_keys.ts";
import { openStorage, selectStorage } from "../../server/stores/mod.ts";
import { lookupOf, openService, orderSpec, withTempDir } from "./helpers.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("kv is the default: the persistence directory is created and described", () =>
  withTempDir(async (tmp) => {
    const dir = `${tmp}/nested/data`;
    const storage = await openStorage(lookupOf({ "svc.persistence-dir": dir }), () => {});
    assert.ok(storage.store instanceof KvModelStore);
    assert.ok(storage.blobs instanceof KvBlobStore);
    assert.equal(storage.description, `kv (${dir}/svc.kv)`);
    assert.ok(await exists(`${dir}/svc.kv`));
    await storage.store.close();
    await storage.blobs.close();
  }));

for (const type of ["kv", "filesystem"]) {
  Deno.test(`${type}: a persistence directory created at startup is said to be a new, empty store; an existing one is not`, () =>
    withTempDir(async (tmp) => {
      // A data directory moved while the setting still names the old path starts an empty store in its
      // place: the operator sees which directory it made, and that nothing is in it.
      const dir = `${tmp}/moved/data`;
      const keys = lookupOf({ "svc.storage.type": type, "svc.persistence-dir": dir });
      for (
        const expected of [[
          `svc.persistence-dir (SVC_PERSISTENCE_DIR) = '${dir}' did not exist: created ${dir}, a new, empty store ` +
          "(a moved data directory is named with SVC_PERSISTENCE_DIR)",
        ], []]
      ) {
        const warnings: string[] = [];
        const storage = await openStorage(keys, (line) => warnings.push(line));
        assert.deepEqual(warnings, expected);
        await storage.store.close();
        await storage.blobs.close();
      }
    }));
}

Deno.test("the default directory is ./data and the threshold 100", () => {
  const selection = selectStorage(lookupOf({}));
  assert.deepEqual(selection, {
    spec: "kv",
    state: "kv",
    audit: "kv",
    blob: "kv",
    dir: "./data",
    blobDir: "./data/blobs",
    compactionThreshold: 100,
    postgres: { url: null, poolSize: 8, jobLeaseMs: 30_000 },
  });
});

Deno.test("svc.storage.type=memory keeps everything in memory and touches no directory", () =>
  withTempDir(async (tmp) => {
    const dir = `${tmp}/unused`;
    const storage = await openStorage(
      lookupOf({ "svc.storage.type": "Memory", "svc.persistence-dir": dir }),
      () => {},
    );
    assert.ok(storage.store instanceof MemoryModelStore);
    assert.ok(storage.blobs instanceof MemoryBlobStore);
    assert.equal(storage.description, "memory");
    assert.equal(await exists(dir), false);
  }));

Deno.test("without svc.storage.type, state and audit follow the spec's backend", () => {
  const selection = selectStorage(lookupOf({ "svc.storage.spec-type": "memory" }));
  assert.deepEqual([selection.spec, selection.state, selection.audit, selection.blob], [
    "memory",
    "memory",
    "memory",
    "kv",
  ]);
});

Deno.test("per-concern keys fall back to svc.storage.type", () => {
  const selection = selectStorage(lookupOf({ "svc.storage.type": "memory", "svc.storage.blob-type": "kv" }));
  assert.deepEqual([selection.spec, selection.state, selection.audit, selection.blob], [
    "memory",
    "memory",
    "memory",
    "kv",
  ]);
});

Deno.test("svc.blob-store is SPEC.md's other name of svc.storage.blob-type, and a known key", () => {
  const chosen = (keys: Record<string, string>) =>
    selectStorage(lookupOf({ "svc.storage.type": "memory", ...keys }));
  assert.equal(chosen({ "svc.blob-store": "filesystem" }).blob, "filesystem");
  assert.equal(
    chosen({ "svc.blob-store": "Filesystem", "svc.storage.blob-type": "filesystem" }).blob,
    "filesystem",
  );
  assert.equal(chosen({ "svc.blob-store": "memory" }).spec, "memory");
  assert.deepEqual(configWarnings([], () => undefined, ["SVC_BLOB_STORE"]), []);
});

Deno.test("svc.blob-store=filesystem keeps blobs as files: they survive a restart", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.storage.type": "memory", "svc.blob-store": "filesystem", "svc.blob-store-path": dir };
    const first = await openService(keys);
    assert.equal(
      first.storage.description,
      `spec memory, state memory, audit memory, blobs filesystem (${dir})`,
    );
    const ref = await first.service.uploadBlob(new TextEncoder().encode("kept"), "text/plain");
    await first.service.close();
    assert.ok(await exists(`${dir}/${ref.$blobId}`));
    const second = await openService(keys);
    assert.equal((await second.service.getBlob(ref.$blobId)).mediaType, "text/plain");
    await second.service.close();
  }));

Deno.test("state in kv with the audit trail in memory: state survives, the trail restarts", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir, "svc.storage.audit-type": "memory" };
    const first = await openService(keys);
    assert.equal(first.storage.description, `spec kv, state kv, audit memory, blobs kv (${dir}/svc.kv)`);
    await first.service.createModel(orderSpec());
    await first.service.mutate("orders", { "$.customer": "Ada" });
    assert.equal((await first.service.getAudit("orders")).length, 1);
    const state = await first.service.getState("orders");
    await first.service.close();

    const second = await openService(keys);
    assert.deepEqual(await second.service.getState("orders"), state);
    assert.deepEqual(await second.service.getAudit("orders"), []);
    await second.service.mutate("orders", { "$.customer": "Bob" });
    assert.deepEqual((await second.service.getAudit("orders")).map((r) => r.sequence), [0]);
    assert.deepEqual(await second.service.verifyAudit("orders"), {
      valid: true,
      recordsChecked: 1,
      firstBrokenSequence: null,
      detail: "ok",
    });
    await second.service.close();
  }));

Deno.test("models in kv with blobs in memory: blobs do not survive, models do", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir, "svc.storage.blob-type": "memory" };
    const first = await openService(keys);
    assert.ok(first.storage.blobs instanceof MemoryBlobStore);
    const ref = await first.service.uploadBlob(new Uint8Array([1, 2, 3]));
    await first.service.createModel(orderSpec());
    await first.service.close();
    const second = await openService(keys);
    assert.deepEqual(await second.service.listModels(), ["orders"]);
    await assert.rejects(second.service.getBlob(ref.$blobId), /not found/);
    await second.service.close();
  }));

Deno.test("blobs in kv with models in memory", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir, "svc.storage.type": "memory", "svc.storage.blob-type": "kv" };
    const first = await openService(keys);
    assert.equal(
      first.storage.description,
      `spec memory, state memory, audit memory, blobs kv (${dir}/svc.kv)`,
    );
    const ref = await first.service.uploadBlob(new Uint8Array([1, 2, 3]), "image/x-test");
    await first.service.createModel(orderSpec());
    await first.service.close();
    const second = await openService(keys);
    assert.deepEqual(await second.service.listModels(), []);
    assert.deepEqual(await second.service.getBlob(ref.$blobId), {
      bytes: new Uint8Array([1, 2, 3]),
      mediaType: "image/x-test",
    });
    await second.service.close();
  }));

Deno.test("svc.storage.type=filesystem keeps models and blobs as files under the persistence directory", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir, "svc.storage.type": "filesystem" };
    const first = await openService(keys);
    assert.equal(first.storage.description, `filesystem (${dir}, ${dir}/blobs)`);
    await first.service.createModel(orderSpec());
    await first.service.mutate("orders", { "$.customer": "Ada" });
    const ref = await first.service.uploadBlob(new Uint8Array([1, 2, 3]), "image/x-test");
    await first.service.close();
    assert.ok(await exists(`${dir}/models/orders/model.json`));
    assert.ok(await exists(`${dir}/blobs/${ref.$blobId}`));
    const second = await openService(keys);
    assert.equal((await second.service.getState("orders") as { customer: string }).customer, "Ada");
    assert.equal((await second.service.verifyAudit("orders")).valid, true);
    assert.equal((await second.service.getBlob(ref.$blobId)).mediaType, "image/x-test");
    await second.service.close();
  }));

Deno.test("filesystem: a journal without its model file is kept with a warning; an empty creation is removed", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir, "svc.storage.type": "filesystem" };
    const first = await openService(keys);
    await first.service.createModel(orderSpec());
    await first.service.mutate("orders", { "$.customer": "Ada" });
    await first.service.close();
    await Deno.remove(`${dir}/models/orders/model.json`);
    await Deno.mkdir(`${dir}/models/unfinished`);
    const second = await openService(keys);
    assert.deepEqual(await second.service.listModels(), []);
    assert.match(
      second.warnings.join("\n"),
      /RECOVERY NEEDED: .*models\/orders holds a journal of \d+ bytes/,
    );
    await second.service.close();
    assert.ok(await exists(`${dir}/models/orders/journal.ndjson`), "the answered writes are still on disk");
    assert.equal(await exists(`${dir}/models/unfinished`), false, "a creation that wrote nothing is removed");
  }));

Deno.test("audit-type none keeps no trail", () =>
  withTempDir(async (dir) => {
    const { service, storage } = await openService({
      "svc.persistence-dir": dir,
      "svc.storage.audit-type": "none",
    });
    assert.match(storage.description, /audit none/);
    await service.createModel(orderSpec());
    await service.mutate("orders", { "$.customer": "Ada" });
    assert.deepEqual(await service.getAudit("orders"), []);
    assert.equal((await service.verifyAudit("orders")).recordsChecked, 0);
    await service.close();
  }));

const REFUSED: { keys: Record<string, string>; message: RegExp }[] = [
  {
    keys: { "svc.storage.type": "redis" },
    message:
      /Configuration svc\.storage\.type \(SVC_STORAGE_TYPE\) = 'redis': unknown storage backend; use memory, kv, filesystem or postgres$/,
  },
  {
    keys: { "svc.storage.state-type": "jdbc" },
    message:
      /Configuration svc\.storage\.state-type \(SVC_STORAGE_STATE_TYPE\) = 'jdbc': that storage backend is not available in this server; use memory, kv, filesystem or postgres$/,
  },
  {
    keys: { "svc.storage.audit-type": "mysql" },
    message:
      /svc\.storage\.audit-type \(SVC_STORAGE_AUDIT_TYPE\) = 'mysql'.*not available.*use memory, kv, filesystem, postgres or none/,
  },
  {
    keys: { "svc.storage.state-type": "filesystem" },
    message:
      /svc\.storage\.state-type \(SVC_STORAGE_STATE_TYPE\) = 'filesystem' needs svc\.storage\.spec-type = 'filesystem' \(it is 'kv'\)/,
  },
  {
    keys: { "svc.storage.type": "postgres" },
    message:
      /svc\.storage\.type \(SVC_STORAGE_TYPE\) = 'postgres' needs svc\.storage\.postgres\.url \(SVC_STORAGE_POSTGRES_URL\)/,
  },
  {
    keys: {
      "svc.storage.type": "postgres",
      "svc.storage.state-type": "memory",
      "svc.storage.postgres.url": "x",
    },
    message:
      /svc\.storage\.state-type \(SVC_STORAGE_STATE_TYPE\) = 'memory': with svc\.storage\.spec-type = 'postgres' the state is shared by every instance/,
  },
  {
    keys: {
      "svc.storage.type": "postgres",
      "svc.storage.postgres.url": "postgres://nobody@127.0.0.1:1/none",
    },
    message: /Storage backend 'postgres' \(nobody@127\.0\.0\.1:1\/none\): /,
  },
  {
    keys: {
      "svc.storage.type": "postgres",
      "svc.storage.jdbc.pool-size": "0",
      "svc.storage.postgres.url": "x",
    },
    message: /svc\.storage\.jdbc\.pool-size \(SVC_STORAGE_JDBC_POOL_SIZE\) = '0': must be at least 1/,
  },
  {
    keys: { "svc.storage.type": "postgres", "svc.storage.postgres.url": "mysql://svc:secret@db:3306/svc" },
    message:
      /^Error: Configuration svc\.storage\.postgres\.url \(SVC_STORAGE_POSTGRES_URL\) is a mysql: URL, not postgres:\/\/user:password@host:5432\/database$/,
  },
  {
    keys: { "svc.storage.blob-type": "none" },
    message: /svc\.storage\.blob-type \(SVC_STORAGE_BLOB_TYPE\) = 'none': unknown storage backend/,
  },
  {
    keys: { "svc.blob-store": "s3" },
    message:
      /^Error: Configuration svc\.blob-store \(SVC_BLOB_STORE\) = 's3': that storage backend is not available in this server; use memory, kv, filesystem or postgres$/,
  },
  {
    keys: { "svc.blob-store": "cloud" },
    message: /svc\.blob-store \(SVC_BLOB_STORE\) = 'cloud': unknown storage backend/,
  },
  {
    keys: { "svc.blob-store": "filesystem", "svc.storage.blob-type": "memory" },
    message:
      /^Error: Configuration svc\.storage\.blob-type \(SVC_STORAGE_BLOB_TYPE\) = 'memory' and svc\.blob-store \(SVC_BLOB_STORE\) = 'filesystem' disagree: both choose the blob store; set one of them$/,
  },
  {
    keys: { "svc.storage.spec-type": "memory", "svc.storage.state-type": "kv" },
    message:
      /svc\.storage\.state-type \(SVC_STORAGE_STATE_TYPE\) = 'kv' needs svc\.storage\.spec-type = 'kv' \(it is 'memory'\)/,
  },
  {
    keys: { "svc.storage.type": "memory", "svc.storage.audit-type": "kv" },
    message:
      /svc\.storage\.audit-type \(SVC_STORAGE_AUDIT_TYPE\) = 'kv' needs svc\.storage\.spec-type = 'kv'/,
  },
  {
    keys: { "svc.storage.compaction-threshold": "0" },
    message:
      /svc\.storage\.compaction-threshold \(SVC_STORAGE_COMPACTION_THRESHOLD\) = '0': must be at least 1/,
  },
  {
    keys: { "svc.storage.compaction-threshold": "often" },
    message: /svc\.storage\.compaction-threshold \(SVC_STORAGE_COMPACTION_THRESHOLD\) must be an integer/,
  },
];

for (const { keys, message } of REFUSED) {
  Deno.test(`storage selection refuses ${JSON.stringify(keys)} with a message naming key and value`, async () => {
    await assert.rejects(openStorage(lookupOf(keys), () => {}), message);
  });
}

Deno.test("a huge directory setting is quoted cut short in each failure, never echoed whole", () =>
  withTempDir(async (tmp) => {
    // Deno's own words quoted the path whole: a 5,000-character variable filled the terminal, twice.
    const refused = async (keys: Record<string, string>, variable: string, words: RegExp) =>
      await assert.rejects(openStorage(lookupOf(keys), () => {}), (err: Error) => {
        assert.match(err.message, new RegExp(`\\(${variable}\\) = '`));
        assert.match(err.message, words);
        assert.match(err.message, /characters\)/);
        assert.ok(
          err.message.length < 1000,
          `${err.message.length} characters: ${err.message.slice(0, 300)}`,
        );
        return true;
      });
    const tooLong = `${tmp}/${"d".repeat(5000)}`;
    await refused({ "svc.persistence-dir": tooLong }, "SVC_PERSISTENCE_DIR", /cannot create the directory/);
    const fs = { "svc.storage.type": "filesystem", "svc.persistence-dir": tooLong };
    await refused(fs, "SVC_PERSISTENCE_DIR", /File name too long/);
    const blobs = { "svc.storage.type": "memory", "svc.storage.blob-type": "filesystem" };
    await refused({ ...blobs, "svc.blob-store-path": tooLong }, "SVC_BLOB_STORE_PATH", /File name too long/);
    // A long path that exists, whose lock file cannot be opened (a directory stands there).
    const deep = `${tmp}${`/${"a".repeat(250)}`.repeat(8)}`;
    await Deno.mkdir(`${deep}/svc.lock`, { recursive: true });
    await refused({ "svc.persistence-dir": deep }, "SVC_PERSISTENCE_DIR", /cannot open its lock file/);
    await Deno.remove(`${deep}/svc.lock`);
    // Its database cannot be opened (a directory again): Deno KV's words name the file whole.
    await Deno.mkdir(`${deep}/svc.kv`);
    await assert.rejects(openStorage(lookupOf({ "svc.persistence-dir": deep }), () => {}), (err: Error) => {
      assert.match(err.message, /^Storage backend 'kv': cannot open .*characters\)/);
      assert.ok(err.message.length < 1000, `${err.message.length} characters`);
      return true;
    });
  }));

Deno.test("a persistence directory that cannot be created aborts with its key", () =>
  withTempDir(async (tmp) => {
    await Deno.writeTextFile(`${tmp}/file`, "");
    await assert.rejects(
      openStorage(lookupOf({ "svc.persistence-dir": `${tmp}/file/data` }), () => {}),
      /Configuration svc\.persistence-dir \(SVC_PERSISTENCE_DIR\) = '.*\/file\/data': cannot create the directory/,
    );
  }));
