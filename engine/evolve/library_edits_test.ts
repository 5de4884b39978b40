import assert from "node:assert/strict";
import type { ServiceError } from "../errors.ts";
import type { ModelSpec } from "../model/types.ts";
import { applyChecked, refusalOf } from "./test_support.ts";

const INHERITED = {
  define: '( $round2 := function($x) { $round($x, 2) }; ["round2"] )',
  ref: "acme/base",
  version: "1.0.0",
  digest: "sha256:00",
};
const LOCAL = '( $gross := function($n) { $round2($n * 1.2) }; $vat := 0.2; ["gross", "vat"] )';

const SPEC: ModelSpec = {
  id: "priced",
  schema: { type: "object", properties: { net: { type: "number" } } },
  library: { description: "pricing", define: LOCAL, layers: [INHERITED] },
  derivations: [
    { path: "$.gross", expr: "$gross(net)" },
    { path: "$.tax", expr: "net * $vat" },
    { path: "$.rounded", expr: "$round2(net)" },
  ],
  viewDefinition: {
    defaultView: "v",
    views: [{ id: "v", components: [{ id: "g", type: "label", text: "$string($gross(net))" }] }],
  },
};

const evolve = (evolution: unknown, spec: ModelSpec = SPEC) => applyChecked(spec, evolution);
const refusal = (evolution: unknown, spec: ModelSpec = SPEC) => refusalOf(spec, evolution);

Deno.test("newLibrary replaces only the local layer; inherited layers and the description stay", () => {
  const define = '( $gross := function($n) { $n * 2 }; $vat := 0.25; ["gross", "vat"] )';
  assert.deepEqual(evolve({ newLibrary: define }).library, {
    description: "pricing",
    define,
    layers: [INHERITED],
  });
  assert.deepEqual(evolve({ newLibrary: { define, signatures: { gross: "<n:n>" } } }).library, {
    description: "pricing",
    define,
    signatures: { gross: "<n:n>" },
    layers: [INHERITED],
  });
  const bare = { ...SPEC, library: LOCAL };
  assert.equal(evolve({ newLibrary: define }, bare).library, define, "a bare string stays one");
  const none = { ...SPEC, library: undefined, derivations: [], viewDefinition: undefined };
  assert.equal(evolve({ newLibrary: define }, none).library, define);
});

Deno.test("newLibrary: null drops the local layer; a library of nothing else goes", () => {
  const spec = { ...SPEC, derivations: [SPEC.derivations![2]], viewDefinition: undefined };
  assert.deepEqual(evolve({ newLibrary: null }, spec).library, {
    description: "pricing",
    layers: [INHERITED],
  });
  const local = { ...spec, library: LOCAL, derivations: [] };
  assert.equal("library" in evolve({ newLibrary: null }, local), false);
});

Deno.test("dropping an export an expression still uses is refused with its locations", () => {
  const err = refusal({ newLibrary: null });
  assert.equal(err.kind, "validation_failed");
  assert.deepEqual(err.body, {
    error: "Evolution refused",
    errors: [
      {
        location: "newLibrary",
        message: "export 'gross' is still used by $gross in derivations[0].expr, " +
          "viewDefinition.views[0].components[0].text",
      },
      { location: "newLibrary", message: "export 'vat' is still used by $vat in derivations[1].expr" },
    ],
  });
  const kept = refusal({ newLibrary: '( $gross := function($n) { $n }; ["gross"] )' });
  assert.deepEqual((kept.body as { errors: unknown[] }).errors, [
    { location: "newLibrary", message: "export 'vat' is still used by $vat in derivations[1].expr" },
  ]);
  const alongside = evolve({
    newLibrary: '( $gross := function($n) { $n }; ["gross"] )',
    removeDerivations: ["$.tax"],
  });
  assert.deepEqual(alongside.derivations!.map((d) => d.path), ["$.gross", "$.rounded"]);
});

Deno.test("an export the new local layer still uses but no longer exports may go", () => {
  const next = evolve({
    newLibrary: '( $vat := 0.2; $gross := function($n) { $round2($n * (1 + $vat)) }; ["gross"] )',
    removeDerivations: ["$.tax"],
  });
  assert.deepEqual(next.derivations!.map((d) => d.path), ["$.gross", "$.rounded"]);
});

Deno.test("newLibrary is shape-checked: no inherited layers, no unknown members", () => {
  for (const newLibrary of [{ define: LOCAL, layers: [] }, 5, { define: 1 }]) {
    assert.throws(() => evolve({ newLibrary }), (err: ServiceError) => err.kind === "bad_request");
  }
});
