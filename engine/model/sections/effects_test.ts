import assert from "node:assert/strict";
import { compile, compileValid, findingAt, locations } from "../../_test_utils.ts";
import { effectNode } from "../../effects/foldback.ts";
import { spec } from "../test_support.ts";

Deno.test("effect executor kinds: any kind when svc.effects.kinds.enabled is unset, else only listed ones", () => {
  const effects = [
    { id: "notify", trigger: "qty > 1", executor: "caller", emit: "n" },
    { id: "hook", trigger: "qty > 2", executor: "webhook" },
    { id: "fetch", trigger: "qty > 3" }, // executor defaults to server
  ];
  assert.deepEqual(compile(spec({ effects })).errors, []);
  const limited = compile(spec({ effects }), { effectKindsEnabled: ["caller", "timer"] });
  assert.deepEqual(locations(limited.errors), ["effects[1].executor", "effects[2].executor"]);
  assert.match(
    limited.errors[0].message,
    /'webhook' is not enabled \(svc\.effects\.kinds\.enabled: caller, timer\)/,
  );
  assert.match(limited.errors[1].message, /'server' is not enabled/);
});

Deno.test("effect shape errors: missing id, duplicate id, bad executor, bad payload, bad statusPath", () => {
  const report = compile(spec({
    effects: [
      { trigger: "true" },
      { id: "a", trigger: "true", executor: "" },
      { id: "a", trigger: "true", payload: 3 },
      { id: "b", trigger: "true", statusPath: "$.status.0" },
      { id: "c", trigger: "true", emit: 5 },
      { id: "d" },
    ],
  }));
  assert.deepEqual(locations(report.errors), [
    "effects[0].id",
    "effects[1].executor",
    "effects[2].id",
    "effects[2].payload",
    "effects[3].statusPath",
    "effects[4].emit",
    "effects[5].trigger",
  ]);
  assert.match(findingAt(report.errors, "effects[2].id").message, /duplicate effect id 'a'/);
  assert.match(findingAt(report.errors, "effects[3].statusPath").message, /\$\.status\[0\]/);
});

Deno.test("policy.timeoutMs is one timer: beyond 2^31 - 1 ms it is refused, up to it accepted", () => {
  const effect = (id: string, timeoutMs: number) => ({ id, trigger: "qty > 1", policy: { timeoutMs } });
  const report = compile(
    spec({ effects: [effect("long", 3_000_000_000), effect("longest", 2_147_483_647)] }),
  );
  assert.deepEqual(locations(report.errors), ["effects[0].policy.timeoutMs"]);
  assert.match(
    report.errors[0].message,
    /timeoutMs 3000000000 is longer than an attempt may wait: at most 2147483647 ms \(about 24\.8 days\)/,
  );
});

/** An effect `id` keyed by `dedupeKey`, its status document at `$.io.<id>`. */
const keyedEffect = (id: string, dedupeKey: string) => ({
  id,
  trigger: "qty > 1",
  dedupeKey,
  statusPath: `$.io.${id}`,
});

Deno.test("a dedupeKey that differs at every commit is refused: the clock, chance, its own status document", () => {
  const report = compile(spec({
    effects: [
      keyedEffect("clock", "$millis()"),
      keyedEffect("now", "qty & $now()"),
      keyedEffect("chance", "$random() < 2"),
      keyedEffect("shuffled", "$shuffle(items)"),
      keyedEffect("own", "io.own.at"),
      keyedEffect("above", "$string($)"),
      keyedEffect("stable", "qty & '@' & price"),
      keyedEffect("bound", "($millis := function() { 1 }; $millis())"),
      keyedEffect("sibling", "io.other"),
    ],
  }));
  assert.deepEqual(locations(report.errors), [0, 1, 2, 3, 4, 5].map((i) => `effects[${i}].dedupeKey`));
  assert.match(
    report.errors[0].message,
    /^the dedupeKey calls \$millis, which answers differently at every commit: the effect would be sent again/,
  );
  assert.match(report.errors[3].message, /calls \$shuffle/);
  assert.match(
    report.errors[4].message,
    /^the dedupeKey reads \$\.io\.own\.at, where the effect's status document/,
  );
  assert.match(report.errors[5].message, /reads \$,/);
});

Deno.test("where the library lends built-ins, a dedupeKey calling a function value reads its context: its own status document is refused", () => {
  const report = compile(spec({
    library: '( $str := function() { $string }; ["str"] )',
    effects: [
      keyedEffect("top", "$str()()"),
      keyedEffect("above", "io.($str()())"),
      keyedEffect("bound", "($f := $str(); $f())"),
      keyedEffect("elsewhere", "qty.($str()())"),
    ],
  }));
  assert.deepEqual(locations(report.errors), [0, 1, 2].map((i) => `effects[${i}].dedupeKey`));
  assert.match(
    report.errors[0].message,
    /^the dedupeKey reads \$, where the effect's status document changes/,
  );
  assert.match(report.errors[1].message, /^the dedupeKey reads \$\.io, where/);
});

Deno.test("a library may not use $shuffle, like the clock and $random", () => {
  const report = compile(
    spec({ library: { define: '( $pick := function($xs) { $shuffle($xs)[0] }; ["pick"] )' } }),
  );
  assert.match(
    findingAt(report.errors, "library.define").message,
    /uses \$shuffle: library values are computed once/,
  );
});

Deno.test("credentials in the literal part of a request URL are refused, pointing to a header instead", () => {
  const effect = (id: string, url: string) => ({ id, trigger: "qty > 1", request: { url } });
  const report = compile(spec({
    effects: [
      effect("both", "https://user:s3cr3t@api.example/x"),
      effect("user", "https://user@{ $const.host }/x"),
      effect("upper", " HTTPS://u:p@api.example"),
      effect("computedHost", "https://{ $const.host }/x"),
      effect("inQuery", "https://api.example/x?mail=a@b.example"),
      effect("inPath", "https://api.example/{ qty }@x"),
    ],
  }));
  assert.deepEqual(locations(report.errors), [
    "effects[0].request.url",
    "effects[1].request.url",
    "effects[2].request.url",
  ]);
  assert.match(report.errors[0].message, /carries credentials \(user:password@\), which are never sent/);
  assert.match(report.errors[0].message, /request header, e\.g\. "authorization"/);
  assert.doesNotMatch(report.errors[0].message, /s3cr3t/, "the secret itself is not repeated");
});

Deno.test("policy waits are whole ms of at most a year: 1e300 is taken as a year, with a warning; 0.5 as 1", () => {
  const model = compileValid(spec({
    effects: [
      { id: "far", trigger: "qty > 1", policy: { retries: 2, backoff: { initialMs: 1e300, maxMs: 1e300 } } },
      { id: "half", trigger: "qty > 1", policy: { retries: 2, backoff: 0.5 } },
    ],
  }));
  const year = 365 * 24 * 3600 * 1000;
  const policy = (id: string) => effectNode(model, id)!.effect.policy;
  assert.deepEqual([policy("far").backoffMs, policy("far").maxBackoffMs], [year, year]);
  assert.equal(policy("half").backoffMs, 1);
  const report = compile(spec({ effects: [{ id: "far", trigger: "qty > 1", policy: { backoff: 1e300 } }] }));
  assert.deepEqual(locations(report.warnings).filter((at) => at.includes("policy")), [
    "effects[0].policy.backoff",
  ]);
  assert.match(
    findingAt(report.warnings, "effects[0].policy.backoff").message,
    /taken as 31536000000 ms \(one year\)/,
  );
});
