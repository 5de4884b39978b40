import assert from "node:assert/strict";
import { getAudit } from "./audit.ts";
import { dryRun, getDomainGuidance, testSpec, validateSpec } from "./authoring.ts";
import { collectBlobGarbage } from "./blobs.ts";
import { flattenSpec, promote } from "./composition.ts";
import { checkInput, isOptionalMember } from "./input.ts";
import { createModel, evolveSpec } from "./models.ts";
import { explain, getField, readField } from "./reads.ts";
import { mutate, patch } from "./writes.ts";

Deno.test("checkInput names a missing, a mistyped and an out-of-range argument", () => {
  assert.throws(
    () => checkInput(readField, { id: "m" }),
    /^ServiceError: Missing required field: 'path' \(expected string\)$/,
  );
  assert.throws(() => checkInput(readField, { id: "m", path: null }), /Missing required field: 'path'/);
  assert.throws(() => checkInput(readField, { id: 5, path: "$.a" }), /Invalid field 'id': expected string/);
  assert.throws(
    () => checkInput(mutate, { id: "m", mutations: [] }),
    /Invalid field 'mutations': expected object/,
  );
  assert.throws(() => checkInput(patch, { id: "m", patch: {} }), /Invalid field 'patch': expected array/);
  assert.throws(
    () => checkInput(patch, { id: "m", patch: [{ op: "jump", path: "/a" }] }),
    /Invalid field 'patch\[0\]\.op': "jump" is not one of/,
  );
  assert.throws(() => checkInput(getAudit, { id: "m", limit: 0 }), /'limit': must be at least 1/);
  // Far out of range: the member's own bound, not zod's safe-integer one.
  assert.throws(() => checkInput(getAudit, { id: "m", limit: 1e20 }), /'limit': must be at most 10000$/);
  assert.throws(() => checkInput(getAudit, { id: "m", limit: -1e20 }), /'limit': must be at least 1$/);
  assert.throws(() => checkInput(getAudit, { id: "m", limit: 1.5 }), /'limit': expected integer/);
  // A non-number where an integer is wanted: integer, as the schemas say, not zod's "number".
  assert.throws(() => checkInput(getAudit, { id: "m", limit: "2" }), /'limit': expected integer$/);
  assert.throws(
    () => checkInput(explain, { id: "m", path: "$.a", limit: "2" }),
    /'limit': expected integer$/,
  );
  assert.throws(
    () => checkInput(dryRun, { spec: {}, mutations: 3 }),
    /Invalid field 'mutations': expected object or array/,
  );
  assert.throws(
    () => checkInput(getDomainGuidance, { topics: ["astrology"] }),
    /"astrology" is not one of/,
  );
  assert.throws(() => checkInput(getDomainGuidance, { topics: [] }), /must have at least 1 item/);
});

Deno.test("checkInput: unknown members are refused for a strict caller and ignored otherwise", () => {
  const args = ["id", "mutations", "includeTraces"];
  assert.throws(
    () => checkInput(mutate, { id: "m", mutations: {}, bogus: 1 }, { args, strictFor: "mutate" }),
    /^ServiceError: Unknown argument 'bogus' for mutate; expected: id, mutations, includeTraces$/,
  );
  assert.deepEqual(checkInput(mutate, { id: "m", mutations: {}, bogus: 1 }, { args: ["id", "mutations"] }), {
    id: "m",
    mutations: {},
  });
  // Members outside a surface's arguments are not taken even when the operation declares them.
  assert.deepEqual(
    checkInput(mutate, { id: "m", mutations: {}, viewId: "v" }, { args: ["id", "mutations"] }),
    { id: "m", mutations: {} },
  );
});

Deno.test("checkInput: REST callers see where the argument came from; defaults apply", () => {
  const where = (member: string) => member === "limit" ? "query parameter 'limit'" : "request body";
  assert.throws(
    () => checkInput(getAudit, { id: "m", limit: 20000 }, { where }),
    /^ServiceError: Invalid query parameter 'limit': must be at most 10000$/,
  );
  assert.throws(
    () => checkInput(mutate, { id: "m", mutations: 1 }, { where }),
    /Invalid request body: expected object/,
  );
  assert.throws(() => checkInput(getField, { id: "m" }, { where }), /^ServiceError: Missing request body$/);
  assert.deepEqual(checkInput(collectBlobGarbage, {}), { apply: false });
});

Deno.test("isOptionalMember: a member of any type is required unless declared optional or defaulted", () => {
  // `spec` and `evolution` take any JSON (checked by the service), yet may not be left out.
  for (
    const [op, member] of [
      [createModel, "spec"],
      [evolveSpec, "evolution"],
      [validateSpec, "spec"],
      [
        testSpec,
        "spec",
      ],
      [dryRun, "spec"],
      [flattenSpec, "spec"],
      [promote, "toRepo"],
      [getAudit, "id"],
    ] as const
  ) {
    assert.equal(isOptionalMember(op, member), false, `${op.name}.${member}`);
    assert.throws(
      () => checkInput(op, member === "id" ? {} : { id: "m" }),
      new RegExp(`Missing required field: .${member}.`),
    );
  }
  for (
    const [op, member] of [[getAudit, "limit"], [dryRun, "mutations"], [collectBlobGarbage, "apply"]] as const
  ) {
    assert.equal(isOptionalMember(op, member), true, `${op.name}.${member}`);
  }
});
