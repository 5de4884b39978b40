/// <reference lib="dom" />
/**
 * The page side of the IndexedDB storage contract: bundled with the contract
 * and browser/stores, it exposes `window.storageContract` to run one case by
 * name in Chromium, each on its own fresh database; with them cases of
 * IndexedDB's own (a database of an earlier layout opened by this one; what an
 * outbox change does to the model's revision).
 *
 * @module
 */
import { openBrowserStorage } from "../../browser/stores/mod.ts";
import type { LogEntry } from "../../engine/mod.ts";
import { contractCases, job, refusedAsStale, same, type StorageBackend } from "./contract.ts";

let databases = 0;

/**
 * IndexedDB as a contract backend: every fixture is a new database, deleted afterwards. Shared: two
 * stores opened over one database in the page coordinate as two tabs do.
 */
const INDEXEDDB: StorageBackend = {
  name: "indexeddb",
  capabilities: ["durable", "shared", "tamper"],
  fresh() {
    const name = `storage-contract-${databases++}`;
    return Promise.resolve({
      alterLoggedRequest: (modelId, request) =>
        new Promise<void>((resolve, reject) => {
          const opened = indexedDB.open(name);
          opened.onsuccess = () => {
            const transaction = opened.result.transaction("models", "readwrite");
            const models = transaction.objectStore("models");
            const cursor = models.openCursor(IDBKeyRange.bound(["log", modelId], ["log", modelId, []]));
            cursor.onsuccess = () => cursor.result!.update({ ...cursor.result!.value, request });
            transaction.oncomplete = () => (opened.result.close(), resolve());
            transaction.onerror = () => reject(transaction.error);
          };
          opened.onerror = () => reject(opened.error);
        }),
      open: ({ compactionThreshold, jobLeaseMs }) =>
        openBrowserStorage(name, { compactionThreshold, jobLeaseMs }),
      dispose: () =>
        new Promise<void>((resolve, reject) => {
          const request = indexedDB.deleteDatabase(name);
          request.onsuccess = () => resolve();
          request.onerror = () => reject(request.error);
        }),
    });
  },
};

/** Runs `write` on the `models` object store of a new database `name` of layout 1 (before heads). */
function layoutOne(name: string, write: (models: IDBObjectStore) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore("blobs");
      write(request.result.createObjectStore("models"));
    };
    request.onsuccess = () => (request.result.close(), resolve());
    request.onerror = () => reject(request.error);
  });
}

/** Cases of IndexedDB alone: its layout history, its outbox changes. */
const INDEXEDDB_CASES = [{
  name: "indexeddb storage: a model stored by layout 1 loads after the upgrade and takes commits",
  async run() {
    const name = `storage-layout-${databases++}`;
    const spec = { id: "old", schema: { type: "object", properties: { qty: { type: "integer" } } } };
    const entry = (qty: number) => ({ at: qty, source: "client", request: { "$.qty": qty } });
    await layoutOne(name, (models) => {
      const base = { doc: {}, meta: [], stale: [] };
      models.put({ spec, base, baseAt: null, logStart: 0, nextLog: 1 }, ["model", "old"]);
      models.put(entry(1), ["log", "old", 0]);
    });
    try {
      const open = () => openBrowserStorage(name, { compactionThreshold: 100 });
      const first = await open();
      const [loaded] = await first.store.load();
      same({ log: loaded.log, problem: loaded.problem }, { log: [entry(1)] }, "the layout-1 model");
      const state = { doc: { qty: 2 }, meta: [], stale: [] };
      const states = {
        current: () => state,
        checkpoint: () => ({ at: null, following: 2, state: () => state }),
      };
      await first.store.commit("old", entry(2) as LogEntry, states, null);
      await first.store.close();
      await first.blobs.close();
      const second = await open();
      same((await second.store.load())[0].log, [entry(1), entry(2)], "its log after a commit");
      await second.store.close();
      await second.blobs.close();
    } finally {
      await new Promise((resolve) => {
        const request = indexedDB.deleteDatabase(name);
        request.onsuccess = request.onerror = resolve;
      });
    }
  },
}, {
  name:
    "indexeddb storage: an outbox change moves the revision: other tabs refresh to it, their writes on the one before are refused",
  async run() {
    const fixture = await INDEXEDDB.fresh();
    const [a, b] = [
      await fixture.open({ compactionThreshold: 100 }),
      await fixture.open({ compactionThreshold: 100 }),
    ];
    try {
      const spec = { id: "outbox", schema: { type: "object" } };
      const state = { doc: {}, meta: [], stale: [] };
      const due = job(spec.id, "remind@1#1", Date.now());
      await a.store.save(spec, state, { created: true, jobs: { put: [due] } });
      await b.store.load();
      const counted = { ...due, attempt: 1 };
      await a.store.updateJobs(spec.id, { update: [counted] });
      await refusedAsStale(
        b.store.updateJobs(spec.id, { remove: [due.id] }),
        "a write on the revision before",
      );
      const refresh = await b.store.coordination!.refresh(spec.id);
      same(refresh.kind === "commits" && refresh.jobs, [counted], "the jobs the refresh carries");
    } finally {
      for (const { store, blobs } of [a, b]) {
        await store.close();
        await blobs.close();
      }
      await fixture.dispose();
    }
  },
}, {
  name:
    "indexeddb storage: a model whose header or head cannot be read is left out with a warning, the others load",
  async run() {
    const name = `storage-unreadable-${databases++}`;
    const spec = (id: string) => ({ id, schema: { type: "object" } });
    const state = { doc: {}, meta: [], stale: [] };
    const warnings: string[] = [];
    const open = () => openBrowserStorage(name, { warn: (message) => warnings.push(message) });
    try {
      const first = await open();
      for (const id of ["good", "head-damaged", "no-spec"]) {
        await first.store.save(spec(id), state, { created: true });
      }
      await first.store.close();
      await first.blobs.close();
      await new Promise<void>((resolve, reject) => {
        const request = indexedDB.open(name);
        request.onsuccess = () => {
          const transaction = request.result.transaction("models", "readwrite");
          const models = transaction.objectStore("models");
          models.put("hello", ["model", "junk"]);
          models.put("garbage", ["head", "head-damaged"]);
          models.put({ base: null }, ["model", "no-spec"]);
          transaction.oncomplete = () => (request.result.close(), resolve());
          transaction.onerror = () => reject(transaction.error);
        };
        request.onerror = () => reject(request.error);
      });
      const second = await open();
      same((await second.store.load()).map((model) => model.spec.id), ["good"], "the models loaded");
      same(warnings.sort(), [
        "model 'head-damaged' not loaded: its stored head is unreadable",
        "model 'junk' not loaded: its stored header is unreadable",
        "model 'no-spec' not loaded: its stored header is unreadable",
      ], "the warnings");
      // A create of such an id replaces what is left of it.
      await second.store.save(spec("junk"), state, { created: true });
      await second.store.close();
      await second.blobs.close();
      const third = await open();
      same(
        (await third.store.load()).map((model) => model.spec.id).sort(),
        ["good", "junk"],
        "after a create",
      );
      await third.store.close();
      await third.blobs.close();
    } finally {
      await new Promise((resolve) => {
        const request = indexedDB.deleteDatabase(name);
        request.onsuccess = request.onerror = resolve;
      });
    }
  },
}];

const cases = [...contractCases(INDEXEDDB), ...INDEXEDDB_CASES];

/** What the test drives. */
export interface StorageContractPage {
  names: string[];
  /** Runs the named case; resolves with `null` or the failure message. */
  run(name: string): Promise<string | null>;
}

(globalThis as { storageContract?: StorageContractPage }).storageContract = {
  names: cases.map((c) => c.name),
  async run(name) {
    try {
      await cases.find((c) => c.name === name)!.run();
      return null;
    } catch (err) {
      return `${(err as Error).name}: ${(err as Error).message}`;
    }
  },
};
