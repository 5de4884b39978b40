import assert from "node:assert/strict";
import { assertLikeJsonata } from "../_test_utils.ts";
import { ExpressionCompiler } from "./compiler.ts";
import { withoutBacktracking } from "./test_meters.ts";

const compiler = new ExpressionCompiler({ cacheSize: 100, timeoutMs: 1000, maxDepth: 200 });

Deno.test("regexes in expressions keep JSONata's results (match, groups, flags, replace, split)", async () => {
  const input = { s: "Ab1 cd22 EF333", t: "line1\nline2" };
  await assertLikeJsonata(compiler, [
    "$match(s, /([a-z]+)(\\d+)/i)",
    "$replace(s, /\\d+/, '#')",
    "$replace(s, /([a-z]+)/i, '<$1>', 2)",
    "$split(s, / /)",
    "$contains(s, /cd2+/)",
    "$match(t, /^line\\d$/m).match",
    "$match('a😀b😀', /😀/).index",
    "s ~> /EF/",
  ], input);
});

Deno.test("a catastrophic regex runs in linear time (RE2), not on the backtracking RegExp", async () => {
  const s = "a".repeat(5000) + "!";
  // A native run of this regex over `s` fails at once (the backtracking one would not end).
  const result = await withoutBacktracking(
    s,
    () => compiler.compile("$contains(s, /^(a+)+$/)").evaluate({ s }),
  );
  assert.equal(result, false);
});

Deno.test("regex syntax RE2 cannot run in linear time fails at compile time", () => {
  assert.throws(() => compiler.compile("$match(s, /(a)\\1/)"), /RE2 syntax, linear time/);
  assert.throws(() => compiler.compile("$contains(s, /a(?=b)/)"), /not supported/);
});

Deno.test("a regex over more than svc.limits.regex-max-input characters fails", async () => {
  const small = new ExpressionCompiler({ cacheSize: 10, timeoutMs: 1000, maxDepth: 100, regexMaxInput: 10 });
  await assert.rejects(
    () => small.compile("$contains(s, /a/)").evaluate({ s: "b".repeat(11) }),
    /regex-max-input/,
  );
});
