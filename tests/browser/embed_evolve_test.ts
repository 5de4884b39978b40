/// <reference lib="dom" />
/**
 * A page deploying a new version of its spec, in real Chromium: the stored
 * model is evolved, not replaced, so its data, its audit trail (the records
 * before the deploy, then the ones after, one valid hash chain) and its
 * effects outbox (a timer job fired before) stay; a stored model that did not
 * load is repaired by the served spec the same way (one another tab makes
 * unloadable while it is shown is said to be stored but not loaded here, not
 * deleted); a change no evolution can say (an annotation) still replaces the
 * model, data kept, trail anew.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Locator, Page } from "playwright-core";
import { launchBrowser } from "./chromium.ts";
import { temporaryWebBuild } from "./journey.ts";
import { enter, freshPage, hostPage, JSON_TYPE, storeSpecVersion } from "./embed_host.ts";
import { type ServedFile, serveStatic } from "./static_server.ts";

/** Version `version` of the deployed spec: `factor` scales the result; `withNote` adds a field. */
function deployed(version: string, factor: number, withNote = false): Record<string, unknown> {
  const note = withNote ? [{ id: "note", type: "textField", label: "Note", bind: "$.note" }] : [];
  return {
    id: "deploy",
    version,
    schema: {
      type: "object",
      properties: {
        n: { type: "number" },
        status: { type: "string" },
        ...withNote ? { note: { type: "string" } } : {},
      },
    },
    derivations: [{ path: "$.result", expr: `n * ${factor}` }],
    // Ten minutes: its job stays in the outbox for the whole test.
    effects: [{
      id: "close",
      executor: "timer",
      trigger: "status = 'open'",
      dedupeKey: "status",
      afterMs: "600000",
      response: { set: { "$.status": "'closed'" } },
    }],
    viewDefinition: {
      defaultView: "main",
      views: [{
        id: "main",
        label: `Deploy ${version}`,
        components: [
          { id: "n", type: "numericField", label: "Count", bind: "$.n" },
          { id: "status", type: "textField", label: "Status", bind: "$.status" },
          { id: "result", type: "numericField", label: "Result", bind: "$.result" },
          ...note,
        ],
      }],
    },
  };
}

/** The ids of the outbox's jobs of model `id`, read from IndexedDB (`["job", id, jobId]`). */
function outbox(page: Page, id: string): Promise<string[]> {
  return page.evaluate((id) =>
    new Promise<string[]>((resolve, reject) => {
      const request = indexedDB.open("svc-embed");
      request.onerror = () => reject(request.error);
      request.onsuccess = () => {
        const db = request.result;
        const keys = db.transaction("models").objectStore("models")
          .getAllKeys(IDBKeyRange.bound(["job", id], ["job", id, []]));
        keys.onsuccess = () => (db.close(), resolve((keys.result as string[][]).map((key) => key[2])));
      };
    }), id);
}

/** The audit trail of model `id` as the page's service reads it: each record's version, and the verification. */
function trail(page: Page, id: string): Promise<{ versions: string[]; sequences: number[]; valid: boolean }> {
  return page.evaluate(async (id) => {
    const embed = await import("/svc-embed.js");
    const service = await embed.createModelService();
    const records = (await service.getAudit(id) as { modelVersion: string; sequence: number }[])
      .sort((a, b) => a.sequence - b.sequence);
    const verification = await service.verifyAudit(id) as { valid: boolean; recordsChecked: number };
    return {
      versions: records.map((r) => r.modelVersion),
      sequences: records.map((r) => r.sequence),
      valid: verification.valid && verification.recordsChecked === records.length,
    };
  }, id);
}

Deno.test("embedding: a new spec version evolves the stored model, trail and outbox kept", async (t) => {
  const build = await temporaryWebBuild();
  const files: Record<string, ServedFile> = {};
  await using server = serveStatic(files, build.dir);
  const base = `http://127.0.0.1:${server.addr.port}`;
  await using browser = await launchBrowser();
  const fresh = () => freshPage(browser);
  const value = (model: Locator, label: string) => model.getByLabel(label, { exact: true }).inputValue();
  const serve = (spec: Record<string, unknown>) =>
    void (files["/deploy.json"] = { type: JSON_TYPE, body: JSON.stringify(spec) });
  files["/deploy.html"] = hostPage(`<svc-model src="/deploy.json"></svc-model>`);
  /** A fresh page showing version 1.0.0 of the deployed spec, `count` entered in its Count. */
  const openDeployed = async (count: string) => {
    serve(deployed("1.0.0", 2));
    const opened = await fresh();
    await opened.page.goto(`${base}/deploy.html`);
    const model = opened.page.locator("svc-model");
    await enter(model, "Count", count);
    return { ...opened, model };
  };
  try {
    await t.step("a derivation changed and a field added: data, trail and outbox kept", async () => {
      const { context, page, errors, model } = await openDeployed("3");
      await enter(model, "Status", "open");
      assert.equal(await value(model, "Result"), "6");
      const jobs = await outbox(page, "deploy");
      assert.equal(jobs.length, 1, "the timer's job is in the outbox");
      const before = await trail(page, "deploy");
      assert.deepEqual(before.versions, ["1.0.0", "1.0.0"]);

      serve(deployed("1.1.0", 3, true));
      await page.reload();
      await model.getByRole("heading", { name: "Deploy 1.1.0" }).waitFor();
      assert.equal(await value(model, "Count"), "3");
      assert.equal(await value(model, "Result"), "9");
      assert.equal(await value(model, "Status"), "open");
      assert.deepEqual(await outbox(page, "deploy"), jobs, "the same job, still pending");
      await enter(model, "Note", "after the deploy");

      // The records before the deploy, then the one after it, in one chain that verifies.
      const after = await trail(page, "deploy");
      assert.deepEqual(after.versions, ["1.0.0", "1.0.0", "1.1.0"]);
      assert.deepEqual(after.sequences, [...before.sequences, before.sequences.at(-1)! + 1]);
      assert.equal(after.valid, true);
      assert.equal(await model.getByRole("alert").count(), 0);
      assert.deepEqual(errors, []);
      await context.close();
    });

    await t.step(
      "a change no evolution can say (an annotation) replaces the model, its data kept",
      async () => {
        const { context, page, errors, model } = await openDeployed("4");
        serve({ ...deployed("1.2.0", 5), _name: "Deploy, renamed" });
        await page.reload();
        await model.getByRole("heading", { name: "Deploy 1.2.0" }).waitFor();
        assert.equal(await value(model, "Count"), "4");
        assert.equal(await value(model, "Result"), "20");
        // A replacement: the trail starts anew.
        await enter(model, "Count", "5");
        const { versions, valid } = await trail(page, "deploy");
        assert.deepEqual([versions, valid], [["1.2.0"], true]);
        assert.equal(await model.getByRole("alert").count(), 0);
        assert.deepEqual(errors, []);
        await context.close();
      },
    );

    await t.step(
      "a stored model that did not load is repaired by the served spec, its trail kept",
      async () => {
        const { context, page, model } = await openDeployed("7");
        // Its stored version becomes one this version refuses (not semantic): it does not load.
        await storeSpecVersion(page, "deploy", "1.0");
        serve(deployed("1.1.0", 3));
        await page.reload();
        await model.getByRole("heading", { name: "Deploy 1.1.0" }).waitFor();
        assert.equal(await value(model, "Count"), "7");
        assert.equal(await value(model, "Result"), "21");
        await enter(model, "Count", "8");
        const { versions, valid } = await trail(page, "deploy");
        assert.deepEqual([versions, valid], [["1.0.0", "1.1.0"], true]);
        await context.close();
      },
    );

    await t.step(
      "a shown model another tab makes unloadable: the view says it is not loaded here, not deleted",
      async () => {
        const { context, page, model } = await openDeployed("7");
        // Another tab saves it under a version this one refuses: the page's store hears of it.
        await storeSpecVersion(page, "deploy", "1.0", true);
        await model.getByRole("alert").getByText(
          "Model 'deploy' is stored but not loaded here: this version cannot load its spec.",
          { exact: true },
        ).waitFor();
        await context.close();
      },
    );
  } finally {
    await build.remove();
  }
});
