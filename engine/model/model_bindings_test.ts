import assert from "node:assert/strict";
import { compileValid, rejectsWith, withBrowserProtoAccessor } from "../_test_utils.ts";
import { SharedFunction } from "../expr/shared_function.ts";
import { spec } from "./test_support.ts";

const LAYERED = {
  constants: { vat: 0.2 },
  library: {
    layers: [{
      define: '( $rate := $const.vat; $gross := function($net) { $net * (1 + $rate) }; ["rate", "gross"] )',
    }],
    define: "( $rate := 0.1; $table := [1, 2].$gross($); $pair := function($a, $b)<nn:n> { $a + $b }; " +
      '["rate", "table", "pair"] )',
  },
};

Deno.test("a model without a library is ready at once: its bindings are $const", () => {
  const model = compileValid(spec({ constants: { k: 1 } }));
  assert.ok(model.bindings.ready);
  assert.deepEqual(model.bindings.base, { const: { k: 1 } });
  assert.deepEqual(model.bindings.exports, []);
});

Deno.test("prepare computes the exports once, layer by layer; the last layer wins a name", async () => {
  const model = compileValid(spec(LAYERED));
  assert.ok(!model.bindings.ready);
  assert.throws(() => model.bindings.base, /computed by prepare\(\) before first use/);
  await Promise.all([model.bindings.prepare(), model.bindings.prepare()]);
  const base = model.bindings.base;
  await model.bindings.prepare();
  assert.equal(model.bindings.base, base, "computed once");
  assert.deepEqual(base.const, { vat: 0.2 });
  assert.equal(base.rate, 0.1);
  assert.deepEqual(base.table, [1.2, 2.4], "a later layer's value uses an earlier layer's function");
  assert.ok(base.gross instanceof SharedFunction);
  assert.deepEqual(
    model.bindings.exports.map((e) => [e.name, e.origin]),
    [["gross", "local"], ["rate", "local"], ["table", "local"], ["pair", "local"]],
  );
  const twice = model.compiler.compile("$gross(10) + $pair(1, 2)");
  assert.equal(await twice.evaluate({}, { ...base }), 15);
});

Deno.test("a layer that fails to evaluate is a 422 naming it; so is a value holding a function", async () => {
  const failing = compileValid(spec({ library: { define: '( $v := $error("boom"); ["v"] )' } }));
  await rejectsWith(
    () => failing.bindings.prepare(),
    "validation_failed",
    /library\.define \(local\) failed to evaluate: .*boom/,
  );
  await rejectsWith(() => failing.bindings.prepare(), "validation_failed", /boom/);
  const holding = compileValid(spec({ library: '( $v := {"f": function() { 1 }}; ["v"] )' }));
  await rejectsWith(
    () => holding.bindings.prepare(),
    "validation_failed",
    /exports 'v', a value holding a function/,
  );
});

Deno.test("signatures from the library check calls from the model", async () => {
  const model = compileValid(spec({
    library: { define: '( $half := function($x) { $x / 2 }; ["half"] )', signatures: { half: "<n:n>" } },
  }));
  await model.bindings.prepare();
  const half = model.bindings.base.half as SharedFunction;
  assert.equal(half.signature, "<n:n>");
  await assert.rejects(
    model.compiler.compile("$half('x')").evaluate({}, { ...model.bindings.base }),
    /T0410/,
  );
});

Deno.test("an export named __proto__ is a binding like any other, under a browser's accessor too", async () => {
  const exported = async () => {
    const model = compileValid(spec({
      library: {
        layers: [{ define: '( $__proto__ := {"x": 1}; ["__proto__"] )' }],
        define: '( $seen := [$__proto__.x, $x]; ["seen"] )',
      },
    }));
    await model.bindings.prepare();
    return model.bindings.base;
  };
  const inDeno = await exported();
  assert.deepEqual(inDeno.seen, [1], "$x is no binding");
  const base = await withBrowserProtoAccessor(exported);
  assert.deepEqual(base.seen, [1]);
  assert.deepEqual(Object.getOwnPropertyDescriptor(base, "__proto__")?.value, { x: 1 });
});
