/**
 * The storage contract (contract.ts) against Deno KV, each case in its own
 * temporary persistence directory.
 *
 * @module
 */
import { openStorage } from "../../server/stores/mod.ts";
import { contractCases } from "./contract.ts";

for (
  const c of contractCases({
    name: "kv",
    capabilities: ["durable"],
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
      };
    },
  })
) Deno.test(c.name, c.run);
