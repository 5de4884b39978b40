import assert from "node:assert/strict";
import { inheritLibrary, layersOf, normalizeLibrary, originOf, withLocalLayer } from "./library_layers.ts";

const A = '( $a := 1; ["a"] )';
const B = '( $b := 2; ["b"] )';
const C = '( $c := 3; ["c"] )';
const PIN = { ref: "acme/base", version: "1.2.0", digest: "sha256:abc", repo: "local", owner: "acme" };

Deno.test("layersOf: the bare string, the object form, inherited layers first", () => {
  assert.deepEqual(layersOf(A), [{
    layer: { define: A },
    location: "library",
    origin: "local",
    inherited: false,
  }]);
  const placed = layersOf({
    define: B,
    signatures: { b: "<:n>" },
    requiresConstants: ["k"],
    layers: [{ define: A, ...PIN }, { define: C }, "junk"],
  });
  assert.deepEqual(placed.map((p) => [p.location, p.origin, p.inherited]), [
    ["library.layers[0]", "acme/base@1.2.0", true],
    ["library.layers[1]", "local", false],
    ["library.define", "local", false],
  ]);
  assert.deepEqual(placed[2].layer, { define: B, signatures: { b: "<:n>" }, requiresConstants: ["k"] });
  assert.deepEqual(layersOf(null), []);
  assert.equal(originOf({ ref: "x" }), "x");
});

Deno.test("a single local layer serializes back as define; anything else is kept", () => {
  assert.deepEqual(
    normalizeLibrary({ description: "d", layers: [{ define: A, signatures: { a: "<:n>" } }] }),
    {
      description: "d",
      define: A,
      signatures: { a: "<:n>" },
    },
  );
  const inherited = { layers: [{ define: A, ...PIN }] };
  assert.equal(normalizeLibrary(inherited), inherited);
  const two = { layers: [{ define: A }, { define: B }] };
  assert.equal(normalizeLibrary(two), two);
  assert.equal(normalizeLibrary(A), A);
});

Deno.test("withLocalLayer replaces or drops only the local layer", () => {
  const library = { description: "d", define: A, layers: [{ define: B, ...PIN }] };
  assert.deepEqual(withLocalLayer(library, C), {
    description: "d",
    define: C,
    layers: [{ define: B, ...PIN }],
  });
  assert.deepEqual(withLocalLayer(library, { define: C, signatures: { c: "<:n>" } }), {
    description: "d",
    define: C,
    signatures: { c: "<:n>" },
    layers: [{ define: B, ...PIN }],
  });
  assert.deepEqual(withLocalLayer(library, null), { description: "d", layers: [{ define: B, ...PIN }] });
  assert.equal(withLocalLayer(A, null), null);
  assert.equal(withLocalLayer(undefined, B), B);
});

Deno.test("inheritLibrary pins the template's layers and keeps the branch's own last", () => {
  const root = { ...PIN, ref: "acme/root", version: "1.0.0" };
  const parent = inheritLibrary({ description: "tax", define: A }, B, root);
  assert.deepEqual(parent, { description: "tax", define: B, layers: [{ define: A, ...root }] });
  // A chain, one template at a time: the template is stored flattened, its pinned layers stay as they are.
  const merged = inheritLibrary(parent, C, PIN);
  assert.deepEqual(merged, {
    description: "tax",
    define: C,
    layers: [{ define: A, ...root }, { define: B, ...PIN }],
  });
  assert.deepEqual(layersOf(merged).map((l) => l.origin), ["acme/root@1.0.0", "acme/base@1.2.0", "local"]);
  assert.deepEqual(inheritLibrary(A, { define: C, description: "mine" }, PIN), {
    description: "mine",
    define: C,
    layers: [{ define: A, ...PIN }],
  });
  assert.equal(inheritLibrary(undefined, undefined, PIN), undefined);
  assert.equal(inheritLibrary(undefined, A, PIN), A);
});
