/**
 * The playground's service worker: on install it caches the app's files (the
 * list the build writes into `ASSETS`); afterwards every same-origin GET of
 * one of them goes to the network first and falls back to the cache, so the
 * page is current when online and still opens offline. API calls, WebSocket
 * handshakes and anything else pass through untouched.
 *
 * @module
 */
/** The few members of the worker scope used here (typed locally: the project is checked with DOM types). */
interface WorkerScope {
  registration: { scope: string };
  clients: { claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(
    type: "install" | "activate",
    listener: (event: { waitUntil(p: Promise<unknown>): void }) => void,
  ): void;
  addEventListener(
    type: "fetch",
    listener: (event: { request: Request; respondWith(r: Promise<Response>): void }) => void,
  ): void;
}
const worker = self as unknown as WorkerScope;
/** Replaced by the build with the app's files and their content hash. */
declare const ASSETS: string[];
declare const VERSION: string;

const CACHE = `svc-playground-${VERSION}`;
const scope = new URL(worker.registration.scope);
const cached = new Set(ASSETS.map((a) => new URL(a, scope).pathname));

worker.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) =>
      Promise.all(ASSETS.map(async (asset) => {
        const url = new URL(asset, scope);
        const response = await fetch(url, { cache: "no-cache" });
        if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
        await cache.put(url, response);
      }))
    ).then(() => worker.skipWaiting()),
  );
});

worker.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys().then((keys) =>
      Promise.all(
        keys.filter((k) => k.startsWith("svc-playground-") && k !== CACHE).map((k) => caches.delete(k)),
      )
    )
      .then(() => worker.clients.claim()),
  );
});

worker.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== scope.origin || !cached.has(url.pathname)) return;
  event.respondWith(
    fetch(event.request).then((response) => {
      if (response.ok) {
        const copy = response.clone();
        void caches.open(CACHE).then((cache) => cache.put(event.request, copy));
      }
      return response;
    }).catch(async () => (await caches.match(event.request, { ignoreSearch: true })) ?? Response.error()),
  );
});
