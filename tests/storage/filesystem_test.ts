/**
 * The storage contract (contract.ts) against the filesystem stores, each case
 * in its own temporary persistence directory.
 *
 * @module
 */
import { nameOf } from "../../server/stores/fs_files.ts";
import { openStorage } from "../../server/stores/mod.ts";
import { contractCases } from "./contract.ts";

for (
  const c of contractCases({
    name: "filesystem",
    capabilities: ["durable", "tamper"],
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
        async alterLoggedRequest(modelId, request) {
          const path = `${dir}/models/${await nameOf(modelId)}/journal.ndjson`;
          const lines = (await Deno.readTextFile(path)).split("\n");
          const line = JSON.parse(lines[0]);
          lines[0] = JSON.stringify({ ...line, entry: { ...line.entry, request } });
          await Deno.writeTextFile(path, lines.join("\n"));
        },
      };
    },
  })
) Deno.test(c.name, c.run);
