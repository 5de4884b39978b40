/// <reference lib="dom" />
/**
 * Browser smoke test: the engine bundled by browser/build.ts runs inside headless
 * Chromium and replays the embedded tests of the conformance examples and of the
 * bundled examples (library functions among them) with exactly the results the
 * engine produces in Deno.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import * as engine from "../../browser/mod.ts";
import { EXAMPLES } from "../../engine/authoring/mod.ts";
import { buildBrowserBundle } from "../../browser/build.ts";
import type { Browser } from "playwright-core";
import { launchBrowser } from "./chromium.ts";
import { serveStatic } from "./static_server.ts";
import { type Example, replayExamples, type ReplayReport } from "./replay.ts";
import { type ProtoMembersReport, runProtoMembers } from "./proto_members.ts";

const EXAMPLES_DIR = new URL("../../../shared/conformance/examples/", import.meta.url);

/** What the page exposes once its module scripts ran. */
interface SmokeWindow {
  smoke?: { engine: typeof engine; replayExamples: typeof replayExamples };
}

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>engine smoke</title>
<link rel="icon" href="data:,">
<script type="module">
  import * as engine from "/engine.browser.js";
  import { replayExamples } from "/replay.js";
  window.smoke = { engine, replayExamples };
</script>
`;

async function readExamples(): Promise<Example[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(EXAMPLES_DIR)) {
    if (entry.isFile && entry.name.endsWith(".json")) names.push(entry.name);
  }
  names.sort();
  assert.ok(names.length > 0, `no example specs in ${fileURLToPath(EXAMPLES_DIR)}`);
  const conformance = await Promise.all(names.map(async (file) => ({
    name: file.slice(0, -".json".length),
    spec: JSON.parse(await Deno.readTextFile(new URL(file, EXAMPLES_DIR))),
  })));
  return [...conformance, ...EXAMPLES.map(({ name, spec }) => ({ name, spec: structuredClone(spec) }))];
}

/** Plain JSON form of a report, so both sides compare as data. */
function asData(report: ReplayReport): ReplayReport {
  return JSON.parse(JSON.stringify(report));
}

Deno.test("the bundled engine replays every example test in Chromium exactly as in Deno", async () => {
  const examples = await readExamples();
  const workDir = await Deno.makeTempDir({ prefix: "engine_smoke_" });
  let server: Deno.HttpServer<Deno.NetAddr> | undefined;
  let browser: Browser | undefined;
  try {
    // The engine bundle as `deno task bundle:browser` writes it, its on-demand files beside it.
    await buildBrowserBundle({ outfile: `${workDir}/engine.browser.js`, onDemandFiles: true });
    await buildBrowserBundle({
      entryPoint: fileURLToPath(new URL("./replay.ts", import.meta.url)),
      outfile: `${workDir}/replay.js`,
    });
    server = serveStatic({ "/": { body: PAGE, type: "text/html; charset=utf-8" } }, workDir);

    const inDeno = asData(await replayExamples(engine, examples));

    browser = await launchBrowser();
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (err) => pageErrors.push(err.message));
    page.on("console", (msg) => msg.type() === "error" && pageErrors.push(msg.text()));
    await page.goto(`http://127.0.0.1:${server.addr.port}/`);
    await page.waitForFunction(() => (window as SmokeWindow).smoke !== undefined, null, { timeout: 20_000 })
      .catch((err) => {
        throw new Error(
          `the engine bundle did not load in Chromium: ${pageErrors.join("; ") || err.message}`,
        );
      });
    // Both ways as JSON text: the report is plain data, and it spares the type checker
    // playwright's deep serialisation types over the spec shapes.
    const inChromium: ReplayReport = JSON.parse(
      await page.evaluate(async (specs) => {
        const { smoke } = window as SmokeWindow;
        return JSON.stringify(await smoke!.replayExamples(smoke!.engine, JSON.parse(specs)));
      }, JSON.stringify(examples)),
    );

    assert.deepEqual(pageErrors, []);
    assert.equal(inDeno.cases.length, examples.reduce((n, e) => n + (e.spec.tests?.length ?? 0), 0));
    assert.deepEqual(inDeno.cases.filter((c) => !c.passed), [], "every example test passes in Deno");
    assert.deepEqual(inDeno.embedded.filter((e) => !e.result.passed).map((e) => e.example), []);
    assert.deepEqual(inChromium, inDeno);
  } finally {
    await browser?.close();
    await server?.shutdown();
    await Deno.remove(workDir, { recursive: true });
  }
});

Deno.test("the bundled engine fetches its on-demand files when needed: closures, RE2 and formats, the guidance", async () => {
  const workDir = await Deno.makeTempDir({ prefix: "engine_re2_" });
  try {
    await buildBrowserBundle({ outfile: `${workDir}/engine.browser.js`, onDemandFiles: true });
    await using server = serveStatic({
      "/": {
        body: `<!doctype html><meta charset="utf-8"><title>re2</title><link rel="icon" href="data:,">
<script type="module">import * as engine from "/engine.browser.js"; window.engine = engine;</script>`,
        type: "text/html; charset=utf-8",
      },
    }, workDir);
    await using browser = await launchBrowser();
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on("request", (request) => requested.push(new URL(request.url()).pathname));
    await page.goto(`http://127.0.0.1:${server.addr.port}/`);
    await page.waitForFunction(() => "engine" in window);
    /** Creates the model in a fresh service in the page, writes, and returns the answer and the state. */
    const run = (spec: object, write: object) =>
      page.evaluate(async ([spec, write]) => {
        const { engine } = window as unknown as { engine: typeof import("../../browser/mod.ts") };
        const service = await engine.ModelService.open({});
        const { id } = await service.createModel(spec);
        const written = await service.mutate(id, write as Record<string, never>).then(
          () => "ok",
          (err) => JSON.parse(JSON.stringify((err as { body?: unknown }).body)),
        );
        return { written, state: JSON.parse(JSON.stringify(await service.getState(id))) };
      }, [spec, write]);

    const plain = {
      id: "plain",
      schema: { type: "object", properties: { a: { type: "number" } } },
      derivations: [{ path: "$.half", expr: "a / 2" }],
    };
    assert.ok(!requested.includes("/engine.browser.compiled.js"), "nothing fetched before a service opens");
    assert.deepEqual(await run(plain, { "$.a": 3 }), { written: "ok", state: { a: 3, half: 1.5 } });
    assert.ok(requested.includes("/engine.browser.compiled.js"), "the compiled closures come with a service");
    assert.ok(!requested.includes("/engine.browser.re2.js"), "no regex, no RE2");

    // ajv-formats' table comes in RE2's file: a schema with a `format` (and no regex) fetches it.
    const formats = {
      id: "formats",
      schema: { type: "object", properties: { mail: { type: "string", format: "email" } } },
    };
    assert.deepEqual(await run(formats, { "$.mail": "a@example.com" }), {
      written: "ok",
      state: { mail: "a@example.com" },
    });
    assert.ok(requested.includes("/engine.browser.re2.js"), "fetched for the format");
    const notMail = await run(formats, { "$.mail": "not a mail address" });
    assert.equal(notMail.written.violations[0].keyword, "format");

    const regex = {
      id: "regex",
      schema: { type: "object", properties: { code: { type: "string", pattern: "^[A-Z]+$" }, s: {} } },
      derivations: [{ path: "$.m", expr: "$contains(s, /ab+c/i)" }],
    };
    assert.deepEqual(await run(regex, { "$.s": "xABBC" }), { written: "ok", state: { s: "xABBC", m: true } });
    const refused = await run(regex, { "$.code": "abc" });
    assert.equal(refused.written.violations[0].keyword, "pattern");

    assert.ok(!requested.includes("/engine.browser.guidance.js"));
    const titles = await page.evaluate(async () => {
      const { engine } = window as unknown as { engine: typeof import("../../browser/mod.ts") };
      const invoker = engine.localInvoker(await engine.ModelService.open({}));
      const { topics } = await invoker.invoke(engine.operations.getDomainGuidance, { topics: ["ranking"] });
      return topics.map((topic) => topic.title);
    });
    assert.deepEqual(titles, ["Ranking and top N"]);
    assert.ok(requested.includes("/engine.browser.guidance.js"));
  } finally {
    await Deno.remove(workDir, { recursive: true });
  }
});

Deno.test("members named __proto__ stay data in Chromium: the same state and audit hashes as in Deno", async () => {
  const workDir = await Deno.makeTempDir({ prefix: "engine_proto_" });
  try {
    await buildBrowserBundle({ outfile: `${workDir}/engine.browser.js`, onDemandFiles: true });
    await buildBrowserBundle({
      entryPoint: fileURLToPath(new URL("./proto_members.ts", import.meta.url)),
      outfile: `${workDir}/proto_members.js`,
    });
    await using server = serveStatic({
      "/": {
        body: `<!doctype html><meta charset="utf-8"><title>proto</title><link rel="icon" href="data:,">
<script type="module">
  import * as engine from "/engine.browser.js";
  import { runProtoMembers } from "/proto_members.js";
  window.proto = () => runProtoMembers(engine);
</script>`,
        type: "text/html; charset=utf-8",
      },
    }, workDir);
    await using browser = await launchBrowser();
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.addr.port}/`);
    await page.waitForFunction(() => "proto" in window);
    const inChromium: ProtoMembersReport = await page.evaluate(() =>
      (window as unknown as { proto: () => Promise<ProtoMembersReport> }).proto()
    );
    const inDeno = await runProtoMembers(engine);

    assert.equal(
      inDeno.state,
      '{"o":{"__proto__":{"x":1}},"p":{"__proto__":{"y":2},"z":3},"copy":{"__proto__":{"y":2},"z":3}}',
    );
    assert.match(inDeno.field, /absent/);
    assert.equal(inDeno.hashes.length, 2);
    assert.equal(inDeno.verified, true);
    assert.deepEqual(inChromium, inDeno);
  } finally {
    await Deno.remove(workDir, { recursive: true });
  }
});
