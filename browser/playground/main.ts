/// <reference lib="dom" />
/**
 * The playground page's entry: defines `<svc-playground>` and, when the page
 * is served over http(s) next to `sw.js`, registers the service worker that
 * keeps the app available offline.
 *
 * @module
 */
import "./app.ts";

if (
  "serviceWorker" in navigator && location.protocol.startsWith("http") &&
  document.documentElement.dataset.sw === "on"
) {
  navigator.serviceWorker.register("sw.js").catch((err) =>
    console.warn(`offline support unavailable: ${err}`)
  );
}
