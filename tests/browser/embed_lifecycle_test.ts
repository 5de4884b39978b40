/// <reference lib="dom" />
/**
 * The embed through a host page's life: a redeployed spec the service refuses
 * (or that refuses the stored data) leaves the stored model as it was, shown
 * and usable under the alert (only the alert when nothing is stored); a tab
 * gone midway through a replacement loses no data; two elements of one `src`,
 * and two tabs, on a first visit share the model; a spec set again on the
 * element drives its buttons; an element put back shows the current state and
 * the last `src` set wins; a page whose CSP forbids 'unsafe-eval' is told so;
 * the embedding example opens offline.
 *
 * @module
 */
import assert from "node:assert/strict";
import { launchBrowser } from "./chromium.ts";
import { assertAccessible, screenshot, temporaryWebBuild } from "./journey.ts";
import { assertEventually, counter, enter, freshPage, hostPage, HTML, JSON_TYPE } from "./embed_host.ts";
import { type ServedFile, serveStatic } from "./static_server.ts";

Deno.test("embedding: specs that change, elements that come and go, strict pages, offline", async (t) => {
  const build = await temporaryWebBuild();
  const order = JSON.parse(await Deno.readTextFile(`${build.dir}/examples/order.json`));
  const files: Record<string, ServedFile> = {};
  await using server = serveStatic(files, build.dir);
  const base = `http://127.0.0.1:${server.addr.port}`;
  await using browser = await launchBrowser();
  const fresh = () => freshPage(browser, 800);
  try {
    await t.step(
      "a changed spec the service refuses leaves the stored model and its data as they were",
      async () => {
        files["/host.html"] = hostPage(`<svc-model src="/spec.json"></svc-model>`);
        files["/spec.json"] = { type: JSON_TYPE, body: JSON.stringify(order) };
        const { context, page } = await fresh();
        const model = page.locator("svc-model");
        await page.goto(`${base}/host.html`);
        await enter(model, "Quantity", "4");
        await enter(model, "Unit price", "10");
        await enter(model, "Customer", "Ada");
        await model.getByText("€45.00").waitFor();

        // A syntax error: refused before anything is touched.
        const broken = structuredClone(order);
        broken.version = "1.1.0";
        broken.derivations[0].expr = "qty * ";
        files["/spec.json"] = { type: JSON_TYPE, body: JSON.stringify(broken) };
        await page.reload();
        const alert = model.getByRole("alert");
        await alert.getByText(/keeps its stored version 1\.0\.0 and its data: .*Spec validation failed/)
          .waitFor();
        await screenshot(page, "embed-refused-spec");
        assert.equal(await model.getByLabel("Quantity").inputValue(), "4");

        // Valid, but its schema refuses the stored quantity: the old model is put back.
        const stricter = structuredClone(order);
        stricter.version = "1.2.0";
        stricter.schema.properties.qty.maximum = 3;
        files["/spec.json"] = { type: JSON_TYPE, body: JSON.stringify(stricter) };
        await page.reload();
        await alert.getByText(/keeps its stored version 1\.0\.0 and its data: version 1\.2\.0/).waitFor();

        files["/spec.json"] = { type: JSON_TYPE, body: JSON.stringify(order) };
        await page.reload();
        await model.getByLabel("Quantity").waitFor();
        assert.equal(await model.getByLabel("Quantity").inputValue(), "4");
        assert.equal(await model.getByLabel("Customer").inputValue(), "Ada");

        // A change the stored data fits is taken over with it.
        const relabelled = structuredClone(order);
        relabelled.version = "1.3.0";
        relabelled.viewDefinition.views[0].label = "Your order, relabelled";
        files["/spec.json"] = { type: JSON_TYPE, body: JSON.stringify(relabelled) };
        await page.reload();
        await model.getByRole("heading", { name: "Your order, relabelled" }).waitFor();
        assert.equal(await model.getByLabel("Quantity").inputValue(), "4");
        await context.close();
      },
    );

    await t.step(
      "a tab gone midway through a replacement loses no data: the next open puts it back",
      async () => {
        files["/journal.html"] = hostPage(`<svc-model src="/journal.json"></svc-model>`);
        files["/blank.html"] = { type: HTML, body: "<!doctype html><title>blank</title>" };
        files["/journal.json"] = { type: JSON_TYPE, body: JSON.stringify(order) };
        const { context, page } = await fresh();
        const model = page.locator("svc-model");
        await page.goto(`${base}/journal.html`);
        await enter(model, "Quantity", "4");
        await enter(model, "Customer", "Ada");

        // Another tab holds the models' object store (IndexedDB runs its readwrite transactions one at
        // a time): the replacement stops at its delete; once its journal is written, the hold passes to
        // a transaction queued behind the delete, so the tab stops after the delete, before the create.
        const other = await context.newPage();
        await other.goto(`${base}/blank.html`);
        await other.evaluate(() => {
          const held = globalThis as unknown as { hold: (release: () => boolean) => Promise<IDBTransaction> };
          held.hold = (release) =>
            new Promise((resolve, reject) => {
              const request = indexedDB.open("svc-embed");
              request.onerror = () => reject(request.error);
              request.onsuccess = () => {
                const tx = request.result.transaction("models", "readwrite");
                const spin = () =>
                  void (tx.objectStore("models").get("spin").onsuccess = () => release() || spin());
                spin();
                resolve(tx);
              };
            });
        });
        await other.evaluate(async () => {
          const scope = globalThis as unknown as Record<string, unknown>;
          const hold = scope.hold as (release: () => boolean) => Promise<IDBTransaction>;
          await hold(() => scope.firstDone === true);
        });
        const relabelled = structuredClone(order);
        relabelled.version = "1.3.0";
        relabelled.viewDefinition.views[0].label = "Your order, relabelled";
        // An annotation changed too: no evolution says it, so the model is replaced.
        relabelled._name = "Order, relabelled";
        files["/journal.json"] = { type: JSON_TYPE, body: JSON.stringify(relabelled) };
        // The page sets the new spec itself (the next page loads it from \`src\`).
        await model.evaluate(
          (el, spec) => void ((el as unknown as { spec: unknown }).spec = spec),
          relabelled,
        );
        const midway = await other.evaluate(async () => {
          const scope = globalThis as unknown as Record<string, unknown>;
          const journaled = () =>
            new Promise<boolean>((resolve, reject) => {
              const request = indexedDB.open("svc-embed-journal");
              request.onerror = () => reject(request.error);
              request.onsuccess = () => {
                const db = request.result;
                if (!db.objectStoreNames.contains("replacing")) return db.close(), resolve(false);
                const get = db.transaction("replacing").objectStore("replacing").get("embed-order");
                get.onsuccess = () => (db.close(), resolve(get.result !== undefined));
              };
            });
          for (let tries = 0; !(await journaled()); tries++) {
            if (tries === 400) throw new Error("no replacement journaled");
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
          const hold = scope.hold as (release: () => boolean) => Promise<IDBTransaction>;
          const second = await hold(() => scope.secondDone === true);
          scope.firstDone = true;
          // Runs once the delete committed: the model is gone from the store.
          return await new Promise((resolve) => {
            const header = second.objectStore("models").get(["model", "embed-order"]);
            header.onsuccess = () => resolve(header.result === undefined);
          });
        });
        assert.equal(midway, true, "the replacement was held after its delete");
        await page.close();
        await other.evaluate(() =>
          void ((globalThis as unknown as Record<string, unknown>).secondDone = true)
        );
        await other.close();

        const next = await context.newPage();
        await next.goto(`${base}/journal.html`);
        const reopened = next.locator("svc-model");
        await reopened.getByRole("heading", { name: "Your order, relabelled" }).waitFor();
        assert.equal(await reopened.getByLabel("Quantity").inputValue(), "4");
        assert.equal(await reopened.getByLabel("Customer").inputValue(), "Ada");
        await context.close();
      },
    );

    await t.step(
      "a refused spec: the stored model runs under the alert, usable; with nothing stored, only the alert",
      async () => {
        files["/kept.html"] = hostPage(`<svc-model src="/kept.json"></svc-model>`);
        files["/kept.json"] = { type: JSON_TYPE, body: JSON.stringify(order) };
        const { context, page, errors } = await fresh();
        // The page's own listener, as an embedding page would have one.
        await context.addInitScript(() => {
          const seen: unknown[] = (globalThis as unknown as { svcErrors: unknown[] }).svcErrors = [];
          document.addEventListener("svc-error", (e) => seen.push((e as CustomEvent).detail));
        });
        const model = page.locator("svc-model");
        await page.goto(`${base}/kept.html`);
        await enter(model, "Quantity", "4");
        await enter(model, "Customer", "Ada");

        // 2.0.0 is valid, but its schema refuses the stored quantity (and it relabels the view).
        const refused = structuredClone(order);
        refused.version = "2.0.0";
        refused.schema.properties.qty.maximum = 3;
        refused.viewDefinition.views[0].label = "Your order 2.0.0";
        files["/kept.json"] = { type: JSON_TYPE, body: JSON.stringify(refused) };
        const alert = model.getByRole("alert").filter({ hasText: "could not start" });
        for (const round of [1, 2]) {
          await page.reload();
          await alert.getByText(/keeps its stored version 1\.0\.0 and its data: version 2\.0\.0/).waitFor();
          // Under the alert, the stored version's view with its data.
          await model.getByRole("heading", { name: "Your order", exact: true }).waitFor();
          assert.equal(await model.getByLabel("Quantity").inputValue(), "4");
          assert.equal(await model.getByLabel("Customer").inputValue(), round === 1 ? "Ada" : "Grace");
          const [event] = await page.evaluate(() =>
            (globalThis as unknown as { svcErrors: unknown[] }).svcErrors
          );
          assert.deepEqual(event, {
            modelId: "embed-order",
            message: await alert.innerText(),
          });
          assert.equal(
            await model.evaluate((el) => (el as unknown as { problem: string }).problem),
            await alert.innerText(),
          );
          if (round === 1) {
            // The page's own open() of the refused spec says so with the exported error type.
            assert.deepEqual(
              await page.evaluate(async (spec) => {
                const embed = await import("/svc-embed.js");
                try {
                  await embed.open(spec);
                  return "opened";
                } catch (err) {
                  return [err instanceof embed.StoredModelKept, (err as { id: string }).id];
                }
              }, refused),
              [true, "embed-order"],
            );
            await screenshot(page, "embed-refused-spec-kept-model");
            await assertAccessible(page, "svc-model");
            await enter(model, "Customer", "Grace");
          }
        }
        assert.deepEqual(errors, []);
        await context.close();

        // A first visit with an invalid spec: nothing stored to run, so only the alert.
        const broken = structuredClone(refused);
        broken.derivations[0].expr = "qty * ";
        files["/kept.json"] = { type: JSON_TYPE, body: JSON.stringify(broken) };
        const first = await fresh();
        await first.page.goto(`${base}/kept.html`);
        const alone = first.page.locator("svc-model");
        await alone.getByRole("alert").getByText(/^This model could not start: .*Spec validation failed/)
          .waitFor();
        assert.equal(await alone.locator("svc-view").count(), 0);
        await screenshot(first.page, "embed-refused-spec-first-visit");
        await first.context.close();
      },
    );

    await t.step("two elements of one src, and two tabs, on a first visit share the model", async () => {
      files["/two.html"] = hostPage(
        `<svc-model id="a" src="/examples/order.json"></svc-model><svc-model id="b" src="/examples/order.json"></svc-model>`,
      );
      files["/one.html"] = hostPage(`<svc-model src="/examples/order.json"></svc-model>`);
      const { context, page, errors } = await fresh();
      await page.goto(`${base}/two.html`);
      await page.locator("#a").getByLabel("Quantity").waitFor();
      await page.locator("#b").getByLabel("Quantity").waitFor();
      await enter(page.locator("#a"), "Quantity", "2");
      await assertEventually(async () =>
        await page.locator("#b").getByLabel("Quantity").inputValue() === "2"
      );
      assert.deepEqual(errors, []);
      await context.close();

      for (let round = 0; round < 2; round++) {
        const tabs = await browser.newContext();
        const [first, second] = [await tabs.newPage(), await tabs.newPage()];
        await Promise.all([first.goto(`${base}/one.html`), second.goto(`${base}/one.html`)]);
        for (const tab of [first, second]) {
          await tab.locator("svc-model").getByLabel("Quantity").or(tab.locator("svc-model [role=alert]"))
            .first().waitFor();
          assert.deepEqual(await tab.locator("svc-model [role=alert]").allInnerTexts(), []);
        }
        if (round === 1) await screenshot(second, "embed-two-tabs");
        await tabs.close();
      }
    });

    await t.step("a spec set again on the element: its buttons use the new one", async () => {
      files["/counter.html"] = hostPage(`<svc-model id="m"></svc-model>`);
      const { context, page, errors } = await fresh();
      await page.goto(`${base}/counter.html`);
      const setSpec = (spec: Record<string, unknown>) =>
        page.evaluate(async (spec) => {
          await customElements.whenDefined("svc-model");
          (document.getElementById("m") as unknown as { spec: unknown }).spec = spec;
        }, spec);
      const model = page.locator("#m");
      await setSpec(counter("1.0.0", 1));
      await model.getByRole("button", { name: "Add a step" }).click();
      await assertEventually(async () =>
        await model.getByLabel("Count", { exact: true }).inputValue() === "1"
      );
      await setSpec(counter("2.0.0", 100));
      await model.getByRole("heading", { name: "Counter 2.0.0" }).waitFor();
      await model.getByRole("button", { name: "Add a step" }).click();
      await assertEventually(async () =>
        await model.getByLabel("Count", { exact: true }).inputValue() === "101"
      );
      await screenshot(page, "embed-spec-set-again");

      // One the stored count does not fit: the alert comes above the model as it was, which still works.
      const refused = counter("3.0.0", 1000);
      (refused.schema as { properties: { n: Record<string, unknown> } }).properties.n.maximum = 50;
      await setSpec(refused);
      await model.getByRole("alert").getByText(/keeps its stored version 2\.0\.0 and its data/).waitFor();
      await model.getByRole("heading", { name: "Counter 2.0.0" }).waitFor();
      await model.getByRole("button", { name: "Add a step" }).click();
      await assertEventually(async () =>
        await model.getByLabel("Count", { exact: true }).inputValue() === "201"
      );
      assert.deepEqual(errors, []);
      await context.close();
    });

    await t.step("an element put back shows the current state; the last src set wins", async () => {
      const named = (id: string, label: string) => {
        const spec = structuredClone(order);
        spec.id = id;
        spec.viewDefinition.views[0].label = label;
        return { type: JSON_TYPE, body: JSON.stringify(spec) };
      };
      files["/slow.json"] = named("slow-model", "Slow model");
      files["/fast.json"] = named("fast-model", "Fast model");
      files["/remount.html"] = hostPage(
        `<div id="host"><svc-model id="m" src="/examples/order.json"></svc-model></div><svc-model id="r"></svc-model>`,
      );
      const { context, page, errors } = await fresh();
      await page.route("**/slow.json", async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await route.continue();
      });
      await page.goto(`${base}/remount.html`);
      const model = page.locator("#m");
      await enter(model, "Quantity", "2");
      await assertEventually(async () => await model.getByLabel("Quantity").inputValue() === "2");
      await page.evaluate(async () => {
        const element = document.getElementById("m")!;
        element.remove();
        const embed = await import("/svc-embed.js");
        await embed.mutate("embed-order", { "$.qty": 9 });
        document.getElementById("host")!.append(element);
      });
      await assertEventually(async () => await model.getByLabel("Quantity").inputValue() === "9");

      await page.evaluate(() => {
        const element = document.getElementById("r")!;
        element.setAttribute("src", "/slow.json");
        setTimeout(() => element.setAttribute("src", "/fast.json"), 100);
      });
      await page.locator("#r").getByRole("heading", { name: "Fast model" }).waitFor();
      await page.waitForTimeout(2500);
      assert.deepEqual(await page.locator("#r").getByRole("heading").allInnerTexts(), ["Fast model"]);
      await screenshot(page, "embed-remount-and-src");
      assert.deepEqual(errors, []);
      await context.close();
    });

    await t.step("a page whose CSP forbids 'unsafe-eval' is told which source to allow", async () => {
      files["/strict.html"] = hostPage(
        `<svc-model src="/examples/order.json"></svc-model>`,
        `<meta http-equiv="Content-Security-Policy" content="script-src 'self'">`,
      );
      const { context, page } = await fresh();
      await page.goto(`${base}/strict.html`);
      await page.locator("svc-model").getByRole("alert").getByText(
        /Content-Security-Policy must allow 'unsafe-eval' in script-src/,
      ).waitFor();
      await screenshot(page, "embed-strict-csp");
      await context.close();
    });

    await t.step("the embedding example opens offline once the app is cached", async () => {
      const { context, page } = await fresh();
      await page.goto(`${base}/`);
      await page.getByText("Connected: this tab").waitFor();
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, {
        timeout: 10_000,
      });
      await context.setOffline(true);
      await page.goto(`${base}/examples/embed.html`);
      await enter(page.locator("svc-model"), "Quantity", "3");
      await enter(page.locator("svc-model"), "Unit price", "10");
      await page.locator("svc-model").getByText("€35.00").waitFor();
      await screenshot(page, "embed-offline");
      await context.close();
    });
  } finally {
    await build.remove();
  }
});
