/**
 * A refused write's schema violation paths are of the rows when the model
 * checked: `messagesOfError` places them where `follow` says those rows are now.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ServiceError } from "../../engine/mod.ts";
import { messagesOfError } from "../../browser/elements/messages.ts";

const refused = new ServiceError("schema_violation", "refused", {
  violations: [{ path: "$.lines[2].d", message: "must NOT have more than 3 characters" }],
});

Deno.test("messagesOfError: a violation's path follows its row when rows moved", () => {
  const moved = messagesOfError(
    refused,
    null,
    ["$.lines[1].d"],
    [],
    "error",
    (a) => [a.replace("[2]", "[1]")],
  );
  assert.deepEqual([...moved.keys()], ["$.lines[1].d"]);
});

Deno.test("messagesOfError: a violation of a row that is gone places no message", () => {
  assert.equal(messagesOfError(refused, null, [], [], "error", () => []).size, 0);
});

Deno.test("messagesOfError: without moves the violation's path is kept", () => {
  assert.deepEqual([...messagesOfError(refused, null, [], []).keys()], ["$.lines[2].d"]);
});
