/**
 * The storage contract (contract.ts) against IndexedDB, in real headless
 * Chromium: the contract and the browser stores are bundled into one page
 * (indexeddb_page.ts), and every case runs there as a step of this test.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { bundleFile } from "../../build/bundle_file.ts";
import { launchBrowser } from "../browser/chromium.ts";
import { serveStatic } from "../browser/static_server.ts";
import type { StorageContractPage } from "./indexeddb_page.ts";

const PAGE =
  `<!doctype html><meta charset="utf-8"><title>storage contract</title><link rel="icon" href="data:,">
<script type="module" src="/contract.js"></script>`;

Deno.test("indexeddb storage: the storage contract in Chromium", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "storage_contract_idb_" });
  try {
    const bundle = await bundleFile(
      fileURLToPath(new URL("./indexeddb_page.ts", import.meta.url)),
      `${dir}/contract.js`,
      { platform: "browser" },
    );
    await using server = serveStatic({
      "/": { body: PAGE, type: "text/html; charset=utf-8" },
      "/contract.js": { body: await Deno.readTextFile(bundle.outfile), type: "text/javascript" },
    });
    await using browser = await launchBrowser();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (err) => errors.push(err.message));
    page.on("console", (msg) => msg.type() === "error" && errors.push(msg.text()));
    await page.goto(`http://127.0.0.1:${server.addr.port}/`);
    await page.waitForFunction(() => "storageContract" in globalThis, null, { timeout: 20_000 });
    const names = await page.evaluate(() =>
      (globalThis as unknown as { storageContract: StorageContractPage }).storageContract.names
    );
    assert.ok(names.length >= 5, `contract cases: ${names.join(", ")}`);
    for (const name of names) {
      await t.step(name, async () => {
        const failure = await page.evaluate(
          (n) => (globalThis as unknown as { storageContract: StorageContractPage }).storageContract.run(n),
          name,
        );
        assert.equal(failure, null);
      });
    }
    assert.deepEqual(errors, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
