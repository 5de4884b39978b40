/// <reference lib="dom" />
/**
 * The embed as a host app's own code uses it (README "In the browser",
 * Embedding): the app reads back at once what it wrote with `mutate`
 * (`getState`, the page-wide service's), and a spec or `src` that cannot start
 * says what is wrong with it in the element's alert and in `open`'s rejection;
 * a spec object the app changes and sets again is applied; an element taken out
 * just after another writer's commit stays closed, and opens again when put back.
 *
 * @module
 */
import assert from "node:assert/strict";
import { launchBrowser } from "./chromium.ts";
import { temporaryWebBuild } from "./journey.ts";
import { assertEventually, counter, freshPage, hostPage, JSON_TYPE } from "./embed_host.ts";
import { type ServedFile, serveStatic } from "./static_server.ts";

Deno.test("embedding: a host app reads its writes back, and a wrong spec or src says what is wrong", async (t) => {
  const build = await temporaryWebBuild();
  const files: Record<string, ServedFile> = {
    "/host.html": hostPage(`<svc-model src="/counter.json"></svc-model>`),
    "/counter.json": { type: JSON_TYPE, body: JSON.stringify(counter("1.0.0", 1)) },
    "/page.json": { type: "text/html", body: "<!doctype html><p>Not found, but with a 200</p>" },
  };
  await using server = serveStatic(files, build.dir);
  const base = `http://127.0.0.1:${server.addr.port}`;
  await using browser = await launchBrowser();
  /** A fresh visitor's host page, its counter shown. */
  const hostShown = async () => {
    const opened = await freshPage(browser);
    await opened.page.goto(`${base}/host.html`);
    await opened.page.locator("svc-model").getByRole("spinbutton", { name: "Count" }).waitFor();
    return opened;
  };
  try {
    await t.step("a value written with mutate is read back at once with getState", async () => {
      const { context, page } = await hostShown();
      const read = await page.evaluate(async () => {
        const embed = await import("/svc-embed.js");
        const seen = [];
        for (let n = 1; n <= 5; n++) {
          await embed.mutate("counter", { "$.n": n });
          seen.push((await embed.getState("counter")).n);
        }
        return seen;
      });
      assert.deepEqual(read, [1, 2, 3, 4, 5]);
      await context.close();
    });

    await t.step(
      "a spec that is not an object, or has no id, is refused in the validator's words",
      async () => {
        const { context, page } = await hostShown();
        const refusals = await page.evaluate(async () => {
          const embed = await import("/svc-embed.js");
          const said = [];
          for (const spec of [null, "counter", { schema: { type: "object" } }]) {
            try {
              await embed.open(spec);
              said.push("opened");
            } catch (err) {
              // The host tells the service's refusals by their class and kind, as a server's answers by status.
              const { ServiceError } = embed as unknown as { ServiceError?: new () => { kind: string } };
              const refusal = ServiceError && err instanceof ServiceError
                ? `ServiceError ${err.kind}`
                : "another error";
              said.push(`${refusal}: ${(err as Error).message}`);
            }
          }
          return said;
        });
        assert.deepEqual(refusals, [
          "ServiceError validation_failed: Spec validation failed: spec: a ModelSpec must be a JSON object",
          "ServiceError validation_failed: Spec validation failed: spec: a ModelSpec must be a JSON object",
          "ServiceError validation_failed: Spec validation failed: id: id is required",
        ]);
        // The element's spec property, set to the spec's text rather than the parsed object.
        await page.evaluate(() => {
          const element = document.createElement("svc-model");
          element.id = "text";
          (element as unknown as { spec: unknown }).spec = JSON.stringify({ id: "counter" });
          document.body.append(element);
        });
        await page.locator("#text").getByRole("alert").getByText(
          "This model could not start: Spec validation failed: spec: a ModelSpec must be a JSON object",
        ).waitFor();
        await context.close();
      },
    );

    await t.step("a src that does not load a spec names it and says why", async () => {
      const { context, page } = await hostShown();
      // A page served instead of the spec; a server that is not there.
      await page.evaluate(() => {
        for (const [id, src] of [["html", "/page.json"], ["gone", "http://127.0.0.1:9/spec.json"]]) {
          const element = document.createElement("svc-model");
          element.id = id;
          element.setAttribute("src", src);
          document.body.append(element);
        }
      });
      const alert = (id: string) => page.locator(`#${id}`).getByRole("alert");
      await alert("html").waitFor();
      assert.match(
        (await alert("html").textContent())!,
        /^This model could not start: could not load \/page\.json: it is not JSON \(.+\)$/,
      );
      await alert("gone").waitFor();
      assert.equal(
        await alert("gone").textContent(),
        "This model could not start: could not load http://127.0.0.1:9/spec.json: Failed to fetch " +
          "(offline, the server not there, another origin not allowing this page (CORS), or this page's " +
          "Content-Security-Policy connect-src not allowing it)",
      );
      await context.close();
    });

    await t.step("a spec changed in place and set again on the element is applied", async () => {
      const { context, page } = await hostShown();
      // The app keeps its spec object, changes it, and sets it again (the same object).
      await page.evaluate((json) => {
        const element = document.createElement("svc-model") as HTMLElement & { spec: unknown };
        element.id = "own";
        const spec = JSON.parse(json);
        spec.id = "own-counter";
        element.spec = spec;
        document.body.append(element);
        (globalThis as unknown as { setAgain(): void }).setAgain = () => {
          spec.version = "1.1.0";
          spec.viewDefinition.views[0].label = "Counter 1.1.0";
          element.spec = spec;
        };
      }, JSON.stringify(counter("1.0.0", 1)));
      const own = page.locator("#own");
      await own.getByRole("heading", { name: "Counter 1.0.0" }).waitFor();
      await page.evaluate(() => (globalThis as unknown as { setAgain(): void }).setAgain());
      await own.getByRole("heading", { name: "Counter 1.1.0" }).waitFor({ timeout: 10_000 });
      await context.close();
    });

    await t.step(
      "an element taken out just after another writer's commit opens again when put back",
      async () => {
        const { context, page } = await hostShown();
        const spec = counter("1.0.0", 1) as {
          id: string;
          viewDefinition: { views: Record<string, unknown>[] };
        };
        spec.id = "visits";
        spec.viewDefinition.views[0].onOpen = { mutations: "{'$.opens': ($exists(opens) ? opens : 0) + 1}" };
        spec.viewDefinition.views[0].onClose = {
          mutations: "{'$.closes': ($exists(closes) ? closes : 0) + 1}",
        };
        await page.evaluate((json) => {
          const element = document.createElement("svc-model") as HTMLElement & { spec: unknown };
          element.id = "visits";
          element.spec = JSON.parse(json);
          document.body.append(element);
        }, JSON.stringify(spec));
        const counts = () =>
          page.evaluate(async () => {
            const { opens, closes } = await (await import("/svc-embed.js")).getState("visits");
            return { opens, closes };
          });
        await assertEventually(async () => (await counts()).opens === 1);
        // The app writes, then takes the element out at once (keeping it): its view closes (onClose) ...
        await page.evaluate(async () => {
          await (await import("/svc-embed.js")).mutate("visits", { "$.n": 5 });
          const element = document.getElementById("visits")!;
          element.remove();
          (globalThis as unknown as { taken: HTMLElement }).taken = element;
        });
        await assertEventually(async () => (await counts()).closes === 1);
        // ... and stays closed out of the page once the refresh that write asked for (20 ms on) fell due, so put
        // back, it opens again (onOpen), as README says of an element that comes back.
        await page.waitForTimeout(300);
        await page.evaluate(() =>
          document.body.append((globalThis as unknown as { taken: HTMLElement }).taken)
        );
        await page.locator("#visits").getByRole("heading", { name: "Counter 1.0.0" }).waitFor();
        await assertEventually(async () => (await counts()).opens === 2);
        assert.deepEqual(await counts(), { opens: 2, closes: 1 });
        await context.close();
      },
    );
  } finally {
    await build.remove();
  }
});
