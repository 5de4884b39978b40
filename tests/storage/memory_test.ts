/**
 * The storage contract (contract.ts) against the in-memory stores.
 *
 * @module
 */
import { MemoryBlobStore, MemoryModelStore } from "../../engine/mod.ts";
import { contractCases } from "./contract.ts";

for (
  const c of contractCases({
    name: "memory",
    capabilities: [],
    fresh: () =>
      Promise.resolve({
        open: () => Promise.resolve({ store: new MemoryModelStore(), blobs: new MemoryBlobStore() }),
        dispose: () => Promise.resolve(),
      }),
  })
) Deno.test(c.name, c.run);
