import assert from "node:assert/strict";
import { compile, findingAt, locations } from "../../_test_utils.ts";

/** A spec whose effects fire on `go`, with `properties` besides it. */
function withStatus(
  properties: Record<string, unknown>,
  effects: { statusPath: string; dedupeKey?: string }[],
  extra: Record<string, unknown> = {},
) {
  return {
    id: "m",
    schema: { type: "object", properties: { go: { type: "boolean" }, ...properties } },
    effects: effects.map((e, i) => ({ id: `e${i}`, trigger: "go = true", ...e })),
    ...extra,
  };
}

const refused = (report: ReturnType<typeof compile>) =>
  findingAt(report.errors, "effects[0].statusPath").message;

Deno.test("a statusPath where the schema refuses the status document is refused, saying why", () => {
  assert.equal(
    refused(compile(withStatus({ st: { type: "string" } }, [{ statusPath: "$.st" }]))),
    "the schema does not accept the effect's status document {phase, key, at, error} at $.st: must be string (type)",
  );
  assert.match(
    refused(compile(withStatus({}, [{ statusPath: "$.go" }]))),
    /at \$\.go: must be boolean \(type\)$/,
    "a field the caller writes, of another type",
  );
  assert.match(
    refused(
      compile(
        withStatus({ io: { type: "object", additionalProperties: false } }, [{ statusPath: "$.io.fx" }]),
      ),
    ),
    /at \$\.io\.fx: property 'fx' is not allowed by the schema \(additionalProperties\)$/,
  );
  assert.match(
    refused(compile(withStatus({ st: { type: "string" } }, [{ statusPath: "$.st.fx" }]))),
    /at \$\.st\.fx: \$\.st must be string: writing \$\.st\.fx would make it an object \(type\)$/,
    "a container on the way",
  );
  const phases = {
    type: "object",
    properties: { phase: { enum: ["pending", "in_flight", "applied", "failed"] } },
  };
  assert.match(
    refused(compile(withStatus({ io: phases }, [{ statusPath: "$.io" }]))),
    /at \$\.io: \$\.io\.phase must be equal to one of the allowed values.* \(enum\)$/,
    "every phase must be accepted (cancelled is not)",
  );
  const stringKey = { type: "object", properties: { key: { type: ["string", "null"] } } };
  assert.deepEqual(
    compile(withStatus({ io: stringKey }, [{ statusPath: "$.io" }])).errors,
    [],
    "no dedupeKey: key null",
  );
  assert.match(
    refused(compile(withStatus({ io: stringKey }, [{ statusPath: "$.io", dedupeKey: "go" }]))),
    /\$\.io\.key must be string,null \(type\)$/,
    "a dedupeKey's value may be of any type",
  );
});

Deno.test("a statusPath the schema accepts is fine: open, declared as object, under an open container, in an array", () => {
  const status = {
    type: "object",
    required: ["phase"],
    properties: {
      phase: { type: "string" },
      key: {},
      at: { type: "string", format: "date-time" },
      error: { type: ["string", "null"] },
    },
    additionalProperties: false,
  };
  const report = compile(withStatus(
    { io: { type: "object", properties: { a: status } }, open: {}, list: { type: "array" } },
    [
      { statusPath: "$.io.a", dedupeKey: "go" },
      { statusPath: "$.io.b" },
      { statusPath: "$.open" },
      { statusPath: "$.undeclared.x" },
      { statusPath: "$.list[3]" },
    ],
  ));
  assert.deepEqual(report.errors, []);
});

Deno.test("a statusPath at, inside or above a derivation target, or another effect's status, is refused", () => {
  const derived = {
    derivations: [{ path: "$.d", expr: "go" }, { path: "$.items[*].total", expr: "1" }],
  };
  const report = compile(withStatus({ d: {}, items: { type: "array" }, io: {} }, [
    { statusPath: "$.d" },
    { statusPath: "$.d.inner" },
    { statusPath: "$.items" },
    { statusPath: "$.items[2].total" },
    { statusPath: "$.io.a" },
    { statusPath: "$.io" },
    { statusPath: "$.io.a" },
    { statusPath: "$.io.a.b" },
    { statusPath: "$.io.b" },
  ], derived));
  assert.deepEqual(locations(report.errors), [0, 1, 2, 3, 5, 6, 7].map((i) => `effects[${i}].statusPath`));
  const message = (i: number) => findingAt(report.errors, `effects[${i}].statusPath`).message;
  assert.equal(
    message(0),
    "statusPath $.d is at the derivation target $.d: the derivation and the effect's status writes would " +
      "overwrite each other",
  );
  assert.match(message(1), /^statusPath \$\.d\.inner is inside the derivation target \$\.d:/);
  assert.match(message(2), /^statusPath \$\.items is above the derivation target \$\.items\[\*\]\.total:/);
  assert.match(
    message(3),
    /^statusPath \$\.items\[2\]\.total is at the derivation target \$\.items\[\*\]\.total:/,
  );
  assert.equal(
    message(5),
    "statusPath $.io is above the statusPath of effect 'e4' ($.io.a): each effect keeps its own status document",
  );
  assert.match(message(6), /^statusPath \$\.io\.a is at the statusPath of effect 'e4'/);
  assert.match(message(7), /^statusPath \$\.io\.a\.b is inside the statusPath of effect 'e4'/);
});

Deno.test("the whole document is no statusPath", () => {
  assert.match(refused(compile(withStatus({}, [{ statusPath: "$" }]))), /names a field/);
});
