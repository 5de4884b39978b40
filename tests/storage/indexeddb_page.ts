/// <reference lib="dom" />
/**
 * The page side of the IndexedDB storage contract: bundled with the contract
 * and browser/stores, it exposes `window.storageContract` to run one case by
 * name in Chromium, each on its own fresh database.
 *
 * @module
 */
import { openBrowserStorage } from "../../browser/stores/mod.ts";
import { contractCases, type StorageBackend } from "./contract.ts";

let databases = 0;

/**
 * IndexedDB as a contract backend: every fixture is a new database, deleted afterwards. Shared: two
 * stores opened over one database in the page coordinate as two tabs do.
 */
const INDEXEDDB: StorageBackend = {
  name: "indexeddb",
  capabilities: ["durable", "shared"],
  fresh() {
    const name = `storage-contract-${databases++}`;
    return Promise.resolve({
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

const cases = contractCases(INDEXEDDB);

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
