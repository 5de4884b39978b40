/**
 * The storage contract (contract.ts) against the filesystem stores, each case
 * in its own temporary persistence directory.
 *
 * @module
 */
import { openStorage } from "../../server/stores/mod.ts";
import { contractCases } from "./contract.ts";

for (
  const c of contractCases({
    name: "filesystem",
    capabilities: ["durable"],
    async fresh() {
      const dir = await Deno.makeTempDir({ prefix: "storage_contract_fs_" });
      return {
        open: ({ compactionThreshold }) => {
          const keys: Record<string, string> = {
            "svc.storage.type": "filesystem",
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
