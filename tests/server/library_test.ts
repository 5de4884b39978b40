/**
 * A model's library over REST on a real server: the library read (200, 404
 * without a library, 404 for an unknown model) and `newLibrary` evolutions
 * (applied, and refused with 422 while a dropped export is still used).
 */
import assert from "node:assert/strict";
import { call, LIBRARY_EXPORTS, librarySpec, orderSpec, startTestServer } from "./helpers.ts";

Deno.test("GET /models/{id}/library: layers and exports; 404 without a library; newLibrary evolves it", async () => {
  const server = await startTestServer();
  try {
    const base = server.url;
    assert.equal((await call(base, "POST", "/models", librarySpec())).status, 201);
    await call(base, "POST", "/models", orderSpec());
    const library = await call(base, "GET", "/models/priced/library");
    assert.equal(library.status, 200);
    assert.deepEqual(library.json, {
      description: "pricing helpers",
      layers: [{ origin: "local", define: (librarySpec().library as { define: string }).define }],
      exports: LIBRARY_EXPORTS,
    });
    const none = await call(base, "GET", "/models/order/library");
    assert.equal(none.status, 404);
    assert.match(none.json.detail, /Model 'order' has no library/);
    assert.equal((await call(base, "GET", "/models/nope/library")).status, 404);

    await call(base, "POST", "/models/priced/mutations", { "$.net": 10 });
    const evolved = await call(base, "POST", "/models/priced/spec/evolve", {
      newLibrary: '( $gross := function($net) { $net * 2 }; ["gross"] )',
    });
    assert.equal(evolved.status, 200);
    assert.equal((await call(base, "GET", "/models/priced/state")).json.gross, 20);
    assert.deepEqual((await call(base, "GET", "/models/priced/library")).json.exports, [
      { name: "gross", kind: "function", arity: 1, origin: "local" },
    ]);
    const refused = await call(base, "POST", "/models/priced/spec/evolve", { newLibrary: null });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.json.errors, [
      { location: "newLibrary", message: "export 'gross' is still used by $gross in derivations[0].expr" },
    ]);
    const unresolved = await call(base, "POST", "/models", {
      ...librarySpec("typo"),
      derivations: [{ path: "$.gross", expr: "$gros(net)" }],
    });
    assert.equal(unresolved.status, 422);
    assert.equal(unresolved.json.errors[0].location, "derivations[0].expr");
    assert.match(unresolved.json.errors[0].message, /calls \$gros .*did you mean \$gross\?/);
  } finally {
    await server.close();
  }
});
