/**
 * Budgets of the browser side, measured (README "Performance"):
 *
 * - the engine bundle (`browser/mod.ts`, minified) gzipped: aim < 150 KB;
 *   the files it loads on demand (RE2, the guidance topics) alongside;
 * - the playground's first load (index.html, playground.js, playground.css),
 *   gzipped: aim < 500 KB; the embed script alongside;
 * - a mutation typed into a field until the view has re-rendered, in real
 *   headless Chromium with the engine in the tab and IndexedDB commits, for
 *   every bundled example: aim < 16 ms (one frame). The time runs from the
 *   field's `change` event to the end of the view's update after the commit
 *   (`svc-commit`, then `updateComplete`): write checks, derivations,
 *   constraints, the audit hash, the IndexedDB transaction, the view delta and
 *   the render.
 *
 *     deno task bench:web [--rounds 40]
 *
 * @module
 */
import { basename } from "node:path";
import { gzipSync } from "node:zlib";
import { buildBrowserBundle, buildWeb } from "../browser/build.ts";
import { EXAMPLES } from "../engine/authoring/examples/mod.ts";
import { launchBrowser } from "../tests/browser/chromium.ts";
import { serveStatic } from "../tests/browser/static_server.ts";

const rounds = Number(Deno.args[Deno.args.indexOf("--rounds") + 1]) || 40;
const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const gz = async (path: string) => gzipSync(await Deno.readFile(path), { level: 9 }).byteLength;

const dir = await Deno.makeTempDir({ prefix: "web_bench_" });
try {
  const engine = await buildBrowserBundle({ outfile: `${dir}/engine.js`, minify: true, onDemandFiles: true });
  const web = await buildWeb(`${dir}/web`, `${dir}/playground.html`);
  const first = ["index.html", "playground.js", "playground.css"];
  const firstLoad = (await Promise.all(first.map((f) => gz(`${web.dir}/${f}`)))).reduce((a, b) => a + b, 0);
  console.log("| what | minified | gzip | budget |");
  console.log("| --- | ---: | ---: | ---: |");
  console.log(
    `| engine bundle (browser/mod.ts) | ${kb(engine.bytes)} KB | ${
      kb(await gz(engine.outfile))
    } KB | 150 KB |`,
  );
  for (const file of engine.onDemand) {
    const name = basename(file.outfile).replace(/^engine/, "engine.browser");
    console.log(`| on demand: ${name} | ${kb(file.bytes)} KB | ${kb(await gz(file.outfile))} KB | |`);
  }
  console.log(
    `| playground first load (${first.join(", ")}) | ${
      kb(first.reduce((n, f) => n + web.files[f], 0))
    } KB | ${kb(firstLoad)} KB | 500 KB |`,
  );
  console.log(
    `| embed script (svc-embed.js) | ${kb(web.files["svc-embed.js"])} KB | ${
      kb(await gz(`${web.dir}/svc-embed.js`))
    } KB | |`,
  );

  await using server = serveStatic({}, web.dir);
  await using browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`http://127.0.0.1:${server.addr.port}/`);
  await page.getByText("Connected: this tab").waitFor();
  console.log(`\n| example (${rounds} writes each) | field | median ms | p95 ms |`);
  console.log("| --- | --- | ---: | ---: |");
  for (const example of EXAMPLES) {
    await page.getByRole("button", { name: "Examples and new model" }).click();
    await page.getByRole("button", { name: `Open ${example.title}` }).click();
    await page.locator("svc-view h2").waitFor();
    const { field, times } = await page.evaluate(async (n) => {
      // deno-lint-ignore no-explicit-any
      const view = document.querySelector("svc-view") as any;
      const root = view.shadowRoot as ShadowRoot;
      // A number field the example filled in (its value is one the model admits), else any editable field.
      const editable = ":not([disabled]):not([readonly])";
      const find = () =>
        ([...root.querySelectorAll<HTMLInputElement>(`input[type=number]${editable}`)].find((i) => i.value) ??
          root.querySelector(`input:is([type=text],[type=email])${editable}`) ??
          root.querySelector(`input[type=number]${editable}`)) as HTMLInputElement | null;
      // A view whose first tab shows no field: the first tab that does.
      for (const tab of [...root.querySelectorAll<HTMLElement>("[role=tab]")]) {
        if (find()) break;
        tab.click();
        await view.updateComplete;
      }
      const input = find()!;
      const label = root.querySelector(`label[for="${input.id}"]`)?.textContent ?? input.id;
      // Numbers step from the example's own value, which its constraints admit (a fixed 2–6 was refused by
      // some examples, and a refused write never commits: the bench waited for good).
      const start = Number(input.value) || 0;
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const committed = new Promise((resolve, reject) => {
          const refused = (e: Event) => {
            view.removeEventListener("svc-commit", resolve);
            reject(new Error(`${label.trim()}: ${(e as CustomEvent<{ message: string }>).detail.message}`));
          };
          view.addEventListener("svc-commit", (e: Event) => {
            view.removeEventListener("svc-error", refused);
            resolve(e);
          }, { once: true });
          view.addEventListener("svc-error", refused, { once: true });
        });
        const started = performance.now();
        input.value = input.type === "number"
          ? String(start + 1 + (i % 2))
          : input.type === "email"
          ? `a${i}@example.org`
          : `value ${i}`;
        input.dispatchEvent(new Event("change", { bubbles: true }));
        await committed;
        await view.updateComplete;
        times.push(performance.now() - started);
      }
      return { field: label.trim(), times };
    }, rounds);
    const sorted = times.slice(5).sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
    console.log(`| ${example.title} | ${field} | ${at(0.5)} | ${at(0.95)} |`);
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
