/**
 * The browser pages on the server: `/` and the web build's files are open
 * (no API key) under the page CSP, the embed script shared with every origin; API routes keep the key and the strict
 * default CSP; the playground page comes marked as served by the server (so
 * it starts connected to it), its other files as built; without a build `/`
 * says how to make one.
 *
 * @module
 */
import assert from "node:assert/strict";
import { PAGE_CSP, SERVED_MARK } from "../../server/routes/web.ts";
import { call, startTestServer } from "./helpers.ts";

const STRICT = "default-src 'none'; frame-ancestors 'none'";

Deno.test("the playground is served open under the page CSP; the API keeps the key and the strict CSP", async () => {
  const root = await Deno.makeTempDir({ prefix: "web_root_" });
  await Deno.mkdir(`${root}/examples`);
  await Deno.writeTextFile(`${root}/index.html`, "<!doctype html><title>playground</title>");
  await Deno.writeTextFile(`${root}/svc-embed.js`, "export {};");
  await Deno.writeTextFile(`${root}/examples/order.json`, "{}");
  const server = await startTestServer({ "svc.api.key": "k3y" }, { webRoot: root });
  try {
    for (
      const [path, type] of [["/", "text/html"], ["/svc-embed.js", "text/javascript"], [
        "/examples/order.json",
        "application/json",
      ]]
    ) {
      const page = await call(server.url, "GET", path);
      assert.equal(page.status, 200, path);
      assert.match(page.headers.get("content-type")!, new RegExp(type));
      assert.equal(page.headers.get("content-security-policy"), PAGE_CSP);
      assert.equal(page.headers.get("x-frame-options"), "DENY");
      // Only the embed script is for pages of other origins (a module script from another origin needs CORS).
      assert.equal(
        page.headers.get("access-control-allow-origin"),
        path === "/svc-embed.js" ? "*" : null,
        path,
      );
    }
    assert.match((await call(server.url, "GET", "/")).text, /<title>playground/);
    const api = await call(server.url, "GET", "/models");
    assert.equal(api.status, 401);
    assert.equal(api.headers.get("content-security-policy"), STRICT);
    const keyed = await call(server.url, "GET", "/models", undefined, { authorization: "Bearer k3y" });
    assert.equal(keyed.status, 200);
    assert.equal(keyed.headers.get("content-security-policy"), STRICT);
    assert.equal(
      (await call(server.url, "GET", "/nothing.js")).headers.get("content-security-policy"),
      STRICT,
    );
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("without a web build, / answers 503 naming the build command", async () => {
  const root = await Deno.makeTempDir({ prefix: "web_root_empty_" });
  const server = await startTestServer({}, { webRoot: root });
  try {
    const page = await call(server.url, "GET", "/");
    assert.equal(page.status, 503);
    assert.match(page.text, /deno task build:web/);
  } finally {
    await server.close();
    await Deno.remove(root);
  }
});

Deno.test("the playground page is marked as served by the server, at / and /pair; other files are as built", async () => {
  const root = await Deno.makeTempDir({ prefix: "web_root_marked_" });
  await Deno.mkdir(`${root}/examples`);
  const page = '<!doctype html>\n<html lang="en" data-sw="on"><title>playground</title></html>';
  await Deno.writeTextFile(`${root}/index.html`, page);
  await Deno.writeTextFile(`${root}/examples/embed.html`, '<!doctype html>\n<html lang="en"></html>');
  const server = await startTestServer({}, { webRoot: root });
  try {
    const marked =
      `<!doctype html>\n<html ${SERVED_MARK} lang="en" data-sw="on"><title>playground</title></html>`;
    for (const path of ["/", "/index.html", "/pair"]) {
      assert.equal((await call(server.url, "GET", path)).text, marked, path);
    }
    assert.equal(
      (await call(server.url, "GET", "/examples/embed.html")).text,
      '<!doctype html>\n<html lang="en"></html>',
    );
    assert.equal(await Deno.readTextFile(`${root}/index.html`), page, "the build itself is left as it is");
  } finally {
    await server.close();
    await Deno.remove(root, { recursive: true });
  }
});
