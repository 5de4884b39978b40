import assert from "node:assert/strict";
import jsonata from "jsonata";
import type { AstNode } from "./compiler.ts";
import { contextCalls, JSONATA_BUILTINS, lendsBuiltins } from "./builtin_names.ts";

Deno.test("every listed name is a function of JSONata's own environment", async () => {
  for (const name of JSONATA_BUILTINS) {
    const value = await jsonata(`$${name}`).evaluate({});
    assert.equal((value as { _jsonata_function?: boolean })?._jsonata_function, true, `$${name}`);
  }
});

Deno.test("a name JSONata does not define is not listed", async () => {
  assert.equal(await jsonata("$sumOf").evaluate({}), undefined);
  assert.ok(!JSONATA_BUILTINS.has("sumOf"));
  assert.ok(!JSONATA_BUILTINS.has("const"));
});

/** One argument of each type JSONata's signatures tell apart, as syntax and as a value. */
const ARGUMENTS: Record<string, [AstNode, unknown]> = {
  s: [{ type: "string", value: "x" }, "x"],
  n: [{ type: "number", value: 1 }, 1],
  b: [{ type: "value", value: true }, true],
  l: [{ type: "value", value: null }, null],
  a: [{ type: "unary", value: "[", expressions: [] }, []],
  o: [{ type: "unary", value: "{", lhs: [] }, {}],
  f: [{ type: "lambda", arguments: [], body: { type: "number", value: 1 } }, undefined],
};
const UNKNOWN: AstNode = { type: "path", steps: [{ type: "name", value: "v" }] };

/** Every string of `length` symbols from `alphabet`. */
const words = (alphabet: string, length: number): string[] =>
  length === 0 ? [""] : words(alphabet, length - 1).flatMap((w) => [...alphabet].map((c) => w + c));

Deno.test("a built-in takes the context exactly when JSONata's signature matching passes it", async () => {
  const fn = await jsonata("function($v) { 1 }").evaluate({});
  const values: Record<string, unknown> = {
    ...Object.fromEntries(Object.entries(ARGUMENTS).map(([k, [, v]]) => [k, v])),
    f: fn,
    m: undefined,
  };
  const context = { context: true };
  /** JSONata's verdict for arguments of these symbols: true taken, false not, undefined the call fails. */
  const verdict = (validate: (args: unknown[], context: unknown) => unknown[], symbols: string) => {
    try {
      return validate([...symbols].map((s) => values[s]), context)[0] === context;
    } catch (err) {
      // T0411: the context taken, but of the wrong type
      return (err as { code: string }).code === "T0411" ? true : undefined;
    }
  };
  for (const name of JSONATA_BUILTINS) {
    const { signature } = await jsonata(`$${name}`).evaluate({});
    // those without a parameter marked `-` never take it (a few cases suffice)
    const alphabet = signature.definition.includes("-") ? "snblaof?" : "s?";
    const call = (args: AstNode[], applied: boolean): AstNode => {
      const node: AstNode = {
        type: "function",
        procedure: { type: "variable", value: name, position: 1 },
        arguments: applied ? args.slice(1) : args,
      };
      return applied ? { type: "apply", value: "~>", lhs: args[0], rhs: node } : node;
    };
    for (let count = 0; count <= 3; count++) {
      // at most one argument of unknown type: more take long and add little
      for (const word of words(alphabet, count).filter((w) => w.split("?").length <= 2)) {
        // every value the unknown arguments may have
        const verdicts = words("asnblfom", word.split("?").length - 1).map((fill) => {
          let i = 0;
          return verdict(signature.validate, word.replace(/\?/g, () => fill[i++]));
        });
        const expected = !verdicts.includes(true) ? undefined : verdicts.includes(false) ? 1 : 2;
        const args = [...word].map((s) => s === "?" ? UNKNOWN : ARGUMENTS[s][0]);
        for (const applied of count > 0 ? [false, true] : [false]) {
          const node = call(args, applied);
          const judged = contextCalls(node).get(applied ? node.rhs as AstNode : node) || undefined;
          assert.equal(
            judged,
            expected,
            `${applied ? "x ~> " : ""}$${name}(${word}) (${signature.definition})`,
          );
        }
      }
    }
  }
});

Deno.test("a built-in named by a variable in scope is that variable", () => {
  // parsed by JSONata: positions tell references apart
  const ast = (source: string) => jsonata(source).ast() as unknown as AstNode;
  assert.deepEqual([...contextCalls(ast("$trim()")).values()].filter(Boolean), [2]);
  assert.deepEqual(
    [...contextCalls(ast("($trim := function($x) { 1 }; $trim())")).values()].filter(Boolean),
    [],
  );
  assert.deepEqual([...contextCalls(ast("function($trim) { $trim() }")).values()].filter(Boolean), []);
});

Deno.test("a built-in used as a value may take the context wherever it is called", () => {
  const ast = (source: string) => jsonata(source).ast() as unknown as AstNode;
  for (const source of ["($g := $trim; $g())", "$map(xs, $substringBefore)", "$f()($trim)"]) {
    assert.deepEqual([...contextCalls(ast(source)).values()].filter(Boolean), [1], source);
  }
  // a partial application holds the context it is made in; the placeholders are the missing arguments
  assert.deepEqual([...contextCalls(ast("$substringBefore(?)")).values()].filter(Boolean), [2]);
  assert.deepEqual([...contextCalls(ast("$substringBefore(?, ',')")).values()].filter(Boolean), []);
  // never takes it: no parameter marked `-`
  assert.deepEqual([...contextCalls(ast("$map(xs, $string)")).values()].filter(Boolean), [1]);
  assert.deepEqual([...contextCalls(ast("$map(xs, $sum)")).values()].filter(Boolean), []);
});

Deno.test("where a library lends built-ins, a call of a function value the expression does not name may take the context", () => {
  const ast = (source: string) => jsonata(source).ast() as unknown as AstNode;
  const taken = (source: string, opaque: boolean) =>
    [...contextCalls(ast(source), opaque).values()].filter(Boolean);
  // every call of one counts (`$lib()` may itself be a built-in the library lends)
  for (const source of ["$lib()()", "($f := $lib(); $f())", "$shout()", "$lib()(?)", "$lib().f()"]) {
    assert.deepEqual(taken(source, false), [], source);
    assert.deepEqual(taken(source, true), source === "$shout()" ? [1] : [1, 1], source);
  }
  // a function written in the expression is followed; a built-in is judged as ever
  assert.deepEqual(taken("function($x) { $x }(1)", true), []);
  assert.deepEqual(taken("$substring('abc', 1)", true), []);
  // a library lends them when it names one as a value, not when it only calls them
  assert.ok(lendsBuiltins(ast('( $upper := function() { $uppercase }; ["upper"] )')));
  assert.ok(lendsBuiltins(ast('( $shout := $uppercase; ["shout"] )')));
  assert.ok(lendsBuiltins(ast('( $fs := function() { [$trim] }; ["fs"] )')));
  // calls of them, passed to a built-in, or built-ins without a context parameter lend nothing
  assert.ok(!lendsBuiltins(ast('( $up := function($s) { $uppercase($s) }; $sum := $sum; ["up"] )')));
  assert.ok(!lendsBuiltins(ast('( $all := function($xs) { $map($xs, $trim) ~> $join(",") }; ["all"] )')));
  assert.ok(!lendsBuiltins(ast('( $all := function($xs) { $xs ~> $map($trim) }; ["all"] )')));
});
