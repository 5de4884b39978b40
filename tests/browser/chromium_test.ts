/**
 * The shared browser helper: which Chromium it picks, and that what it launches
 * is headless, answers a loopback page and goes away on close.
 */
import assert from "node:assert/strict";
import { CHROMIUM_ENV, findChromium, launchBrowser } from "./chromium.ts";

const noEnv = () => undefined;

Deno.test("TEST_CHROMIUM wins, then a system Chromium, then the npm package's", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-chromium-find-" });
  try {
    const system = `${dir}/chromium`;
    await Deno.writeTextFile(system, "");
    const env = (value: string) => (name: string) => name === CHROMIUM_ENV ? value : undefined;

    assert.deepEqual(await findChromium({ env: env(Deno.execPath()), systemPaths: [system] }), {
      path: Deno.execPath(),
      source: "env",
    });
    await assert.rejects(findChromium({ env: env(`${dir}/absent`) }), /TEST_CHROMIUM=.*absent: no such file/);
    assert.deepEqual(await findChromium({ env: noEnv, systemPaths: [`${dir}/absent`, system] }), {
      path: system,
      source: "system",
    });

    const packaged = await findChromium({ env: env("npm"), systemPaths: [system] });
    assert.equal(packaged.source, "npm");
    assert.ok((await Deno.stat(packaged.path)).isFile);
    assert.deepEqual(await findChromium({ env: noEnv, systemPaths: [] }), packaged);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("launchBrowser: headless Chromium that loads a loopback page and closes", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("<title>ok</title><p>hello</p>", { headers: { "content-type": "text/html" } }),
  );
  try {
    await using browser = await launchBrowser();
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.addr.port}/`);
    assert.equal(await page.textContent("p"), "hello");
    assert.match(await page.evaluate(() => navigator.userAgent), /Headless/);
    assert.equal(browser.isConnected(), true);
  } finally {
    await server.shutdown();
  }
});
