/**
 * The storage contract (contract.ts) against Deno KV, each case in its own
 * temporary persistence directory.
 *
 * @module
 */
import { openStorage } from "../../server/stores/mod.ts";
import { commitEntries, openRawKv, putCommitEntry } from "../persistence/helpers.ts";
import { contractCases } from "./contract.ts";

for (
  const c of contractCases({
    name: "kv",
    capabilities: ["durable", "tamper"],
    async fresh() {
      const dir = await Deno.makeTempDir({ prefix: "storage_contract_kv_" });
      return {
        open: ({ compactionThreshold }) => {
          const keys: Record<string, string> = {
            "svc.storage.type": "kv",
            "svc.persistence-dir": dir,
            "svc.storage.compaction-threshold": String(compactionThreshold),
          };
          return openStorage((key) => keys[key], () => {});
        },
        dispose: () => Deno.remove(dir, { recursive: true }),
        async alterLoggedRequest(modelId, request) {
          const kv = await openRawKv(dir);
          try {
            const [first] = await commitEntries(kv, modelId);
            await putCommitEntry(kv, { key: first.key, value: { ...first.value, request } });
          } finally {
            kv.close();
          }
        },
      };
    },
  })
) Deno.test(c.name, c.run);
