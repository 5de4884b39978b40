import assert from "node:assert/strict";
import { parse } from "acorn";
import { fullAncestor } from "acorn-walk";
import { parenthesizeFunctions, startupFunctions } from "./eager_compile.ts";

/** The offset of the `n`th occurrence of `needle` in `source`. */
function offsetOf(source: string, needle: string, n = 0): number {
  let at = -1;
  for (let i = 0; i <= n; i++) at = source.indexOf(needle, at + 1);
  assert.ok(at >= 0, `${needle} not found`);
  return at;
}

/** Runs an ES module's source and returns what it exports as `result`. */
async function evaluate(source: string): Promise<unknown> {
  const url = `data:text/javascript;base64,${btoa(source)}`;
  return (await import(url)).result;
}

Deno.test("parenthesizeFunctions wraps the listed function expressions and arrows, nested ones included", async () => {
  const source = [
    "const outer = function () { const inner = (x) => () => x + 1; return inner(1)(); };",
    "const later = () => 2;",
    "export const result = [outer(), later(), outer.name, later.name];",
  ].join("\n");
  const starts = new Set([
    offsetOf(source, "function ()"),
    offsetOf(source, "(x) =>"),
    offsetOf(source, "() => x"),
    offsetOf(source, "() => 2"),
  ]);
  const { source: wrapped, wrapped: count } = parenthesizeFunctions(source, starts);
  assert.equal(count, 4);
  assert.ok(
    wrapped.includes(
      "const outer = (function () { const inner = ((x) => (() => x + 1)); return inner(1)(); });",
    ),
  );
  assert.ok(wrapped.includes("const later = (() => 2);"));
  parse(wrapped, { ecmaVersion: "latest", sourceType: "module" });
  // The same behaviour, names inferred from the bindings included.
  assert.deepEqual(await evaluate(wrapped), await evaluate(source));
  assert.deepEqual(await evaluate(wrapped), [2, 2, "outer", "later"]);
});

Deno.test("parenthesizeFunctions leaves declarations, methods, accessors, parenthesized and unlisted functions", () => {
  const source = [
    "function declared() { return 1; }",
    "class A { method() { return 2; } get value() { return 3; } }",
    "const o = { short() { return 4; }, get g() { return 5; }, set s(v) {}, plain: function () { return 6; } };",
    "const already = (() => 7);",
    "const unlisted = () => 8;",
  ].join("\n");
  // Every function's start but `unlisted`'s.
  const starts = new Set<number>();
  fullAncestor(
    parse(source, { ecmaVersion: "latest", sourceType: "module", preserveParens: true }),
    (node) => {
      if (/Function/.test(node.type)) starts.add(node.start);
    },
  );
  starts.delete(offsetOf(source, "() => 8"));
  const { source: wrapped, wrapped: count } = parenthesizeFunctions(source, starts);
  // Of them, only the function expression of `plain` may stand in parentheses.
  assert.equal(count, 1);
  assert.ok(wrapped.includes("plain: (function () { return 6; })"));
  parse(wrapped, { ecmaVersion: "latest", sourceType: "module" });
  for (
    const kept of ["function declared()", "method() {", "get value()", "short() {", "get g()", "set s(v)"]
  ) {
    assert.ok(wrapped.includes(kept), kept);
  }
  assert.ok(wrapped.includes("const already = (() => 7);"));
  assert.ok(wrapped.includes("const unlisted = () => 8;"));
});

Deno.test("startupFunctions reports the functions a fresh start runs, not the ones it only defines", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-eager-test-" });
  // The builder's own configuration does not reach the profiled start.
  Deno.env.set("SVC_EAGER_PROBE", "set");
  try {
    const script = `${dir}/start.js`;
    const source = [
      "const used = (line) => line.trim().toUpperCase();",
      "const unused = () => 'never';",
      "const configured = () => 'configured';",
      "const text = new TextDecoder().decode(await new Response(Deno.stdin.readable).arrayBuffer());",
      "console.log(Deno.env.get('SVC_EAGER_PROBE') === undefined ? used(text) : configured(), typeof unused);",
    ].join("\n");
    await Deno.writeTextFile(script, source);
    const starts = await startupFunctions(script, [{ args: [], stdin: " hello \n" }]);
    assert.ok(starts.has(offsetOf(source, "(line) =>")));
    assert.ok(!starts.has(offsetOf(source, "() => 'never'")));
    assert.ok(!starts.has(offsetOf(source, "() => 'configured'")));
  } finally {
    Deno.env.delete("SVC_EAGER_PROBE");
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("startupFunctions fails when a profiled start fails", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-eager-test-" });
  try {
    const script = `${dir}/fails.js`;
    await Deno.writeTextFile(script, "throw new Error('no start');");
    await assert.rejects(
      () => startupFunctions(script, [{ args: ["console"], stdin: "" }]),
      /profiling 'console' exited with 1: .*no start/s,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
