/**
 * What an embedding needs of a strict Content-Security-Policy beyond scripts
 * (README "Embedding"): an image component showing a file the model stores
 * (an upload) draws it from a `blob:` URL, and one with an address of the
 * page's origin loads it from there, so `img-src` must allow `blob:` and the
 * images' origins (`'self'` here); nothing else (no download, worker or style)
 * is needed. Under the README's policy the page reports no violation and both
 * images draw; without `blob:` the stored image is refused (a violation).
 *
 * @module
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Browser } from "playwright-core";
import { launchBrowser } from "./chromium.ts";
import { hostPage, JSON_TYPE } from "./embed_host.ts";
import { screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

/** The policy the README names for an embedding whose views show images (`data:`: the host page's favicon). */
const CSP =
  "default-src 'none'; script-src 'self' 'unsafe-eval'; connect-src 'self'; img-src 'self' blob: data:";

/** A 1×1 PNG (70 bytes). */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

const SPEC = {
  id: "csp-images",
  version: "1.0.0",
  schema: { type: "object", properties: { photo: { type: "object" } } },
  viewDefinition: {
    defaultView: "main",
    views: [{
      id: "main",
      label: "Photos",
      components: [
        {
          id: "upload",
          type: "fileUploadField",
          bind: "$.photo",
          label: "Photo",
          allowedMediaTypes: ["image/png"],
        },
        { id: "photo", type: "image", bind: "$.photo", alt: "The photo stored", width: 64, height: 64 },
        { id: "logo", type: "image", src: "/logo.png", alt: "The logo", width: 64, height: 64 },
      ],
    }],
  },
};

/** Opens the host page at `url` (its policy in a meta tag), uploads a PNG; what the page reported, and which images drew. */
async function underPolicy(browser: Browser, url: string, name: string) {
  const { page, errors } = await watchedPage(browser);
  await page.goto(url);
  const model = page.locator("svc-model");
  await model.getByLabel("Photo", { exact: true }).setInputFiles({
    name: "dot.png",
    mimeType: "image/png",
    buffer: PNG,
  });
  const photo = model.getByAltText("The photo stored");
  await page.waitForFunction(
    (img) => (img as HTMLImageElement).src.startsWith("blob:"),
    await photo.elementHandle(),
  );
  const drawn = (alt: string) =>
    model.getByAltText(alt).evaluate(async (img: HTMLImageElement) => {
      await img.decode().catch(() => {});
      return img.complete && img.naturalWidth > 0;
    });
  const shown = { photo: await drawn("The photo stored"), logo: await drawn("The logo") };
  await screenshot(page, name);
  await page.close();
  return { errors, shown };
}

Deno.test("embedding: images under a strict CSP need img-src blob: (stored files) and their origins", async () => {
  const build = await temporaryWebBuild();
  const page = (csp: string) =>
    hostPage(
      `<svc-model src="/images.json"></svc-model>`,
      `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    );
  await using server = serveStatic({
    "/": page(CSP),
    "/without-blob": page(CSP.replace(" blob:", "")),
    "/images.json": { type: JSON_TYPE, body: JSON.stringify(SPEC) },
    "/logo.png": { type: "image/png", body: new Uint8Array(PNG) },
  }, build.dir);
  await using browser = await launchBrowser();
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const allowed = await underPolicy(browser, `${base}/`, "embed-csp-images");
    assert.deepEqual(allowed, { errors: [], shown: { photo: true, logo: true } });
    // Without blob:, the stored file's image is refused, a violation reported.
    const refused = await underPolicy(browser, `${base}/without-blob`, "embed-csp-images-refused");
    assert.deepEqual(refused.shown, { photo: false, logo: true });
    assert.match(
      refused.errors.join("\n"),
      /Loading the image 'blob:[^']+' violates the following Content Security Policy directive: "img-src/,
    );
  } finally {
    await build.remove();
  }
});
