import assert from "node:assert/strict";
import { assertLikeJsonata } from "../_test_utils.ts";
import { ExpressionCompiler } from "./compiler.ts";

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

Deno.test("a catastrophic regex runs in linear time (RE2)", async () => {
  const started = Date.now();
  const result = await compiler.compile("$contains(s, /^(a+)+$/)").evaluate({ s: "a".repeat(5000) + "!" });
  assert.equal(result, false);
  assert.ok(Date.now() - started < 500, "no backtracking");
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
