import assert from "node:assert/strict";
import {
  conflict,
  constraintViolation,
  notFound,
  schemaViolation,
  ServiceError,
  specInvalid,
  tooMany,
  unprocessable,
  versionConflict,
} from "../../engine/errors.ts";
import { evolutionRefused, invalidEvolution, stateStranded } from "../../engine/evolve/refusals.ts";
import { unauthorized } from "../../server/middleware/auth/index.ts";
import { serviceErrorResponse } from "../../server/problem.ts";
import { errorFromResponse } from "../../engine/operations/remote_error.ts";
import { notLoaded } from "../../engine/service/unloaded.ts";

/** What a remote caller gets for the response the server sends for `err`. */
async function roundTrip(err: ServiceError): Promise<ServiceError> {
  const response = serviceErrorResponse(err)!;
  return errorFromResponse(response.status, response.statusText, await response.text());
}

Deno.test("every service error survives the trip through the server's problem response", async () => {
  const errors = [
    conflict("Model 'order' already exists"),
    notFound("Model 'x' not found"),
    tooMany("Model limit reached"),
    unprocessable("Array index 99999 exceeds the limit"),
    constraintViolation([{ constraintId: "max", message: "qty must not exceed 100", policy: "rollback" }]),
    constraintViolation([
      { constraintId: "a", message: "first", policy: "rollback" },
      { constraintId: "b", message: "second", policy: "rollback" },
    ]),
    schemaViolation([{ path: "$.qty", keyword: "minimum", message: "must be >= 0" }]),
    specInvalid([{ location: "derivations[0].expr", message: "syntax error" }], [
      { location: "constraints", message: "unused" },
    ]),
    versionConflict("1.0.0", "1.0.1"),
    invalidEvolution([{ location: "addDerivations", message: "must be array" }]),
    evolutionRefused([{ location: "removeConstants[0]", message: "still referenced" }]),
    stateStranded([{ path: "$.qty", keyword: "type", message: "must be string" }]),
    notLoaded("shop/cart", [{ location: "version", message: "'1.0' is not a semantic version" }]),
  ];
  for (const original of errors) {
    const remote = await roundTrip(original);
    assert.ok(remote instanceof ServiceError);
    assert.equal(remote.kind, original.kind, original.message);
    assert.equal(remote.message, original.message);
    assert.deepEqual(remote.body, original.body);
  }
});

Deno.test("the 401 of the key gate is an unauthorized error with the server's message", async () => {
  const response = unauthorized();
  const err = errorFromResponse(response.status, response.statusText, await response.text());
  assert.equal(err.kind, "unauthorized");
  assert.equal(err.message, "Missing or invalid API key");
});

Deno.test("bodies that are not ours still say what came back", () => {
  const page = errorFromResponse(502, "Bad Gateway", "<html>upstream down</html>");
  // 502 is a kind of its own (an upstream failure, such as the LLM provider's).
  assert.equal(page.kind, "bad_gateway");
  assert.equal(page.message, "HTTP 502 Bad Gateway: <html>upstream down</html>");
  assert.equal(page.body, undefined);
  const bare = errorFromResponse(405, "", "");
  assert.equal(bare.message, "HTTP 405");
  assert.equal(bare.kind, "not_allowed");
  // A structured title with members missing keeps the title as the message and the body as sent.
  const odd = errorFromResponse(409, "Conflict", JSON.stringify({ error: "Constraint violation" }));
  assert.equal(odd.kind, "conflict");
  assert.equal(odd.message, "Constraint violation");
  assert.deepEqual(odd.body, { error: "Constraint violation" });
  // A foreign `{error, detail}` (a gateway's, another framework's) shows both, cut as any message is.
  const foreign = { error: "Bad Gateway", detail: "upstream timed out after 30 s" };
  const both = errorFromResponse(502, "Bad Gateway", JSON.stringify(foreign));
  assert.equal(both.message, "Bad Gateway: upstream timed out after 30 s");
  assert.deepEqual(both.body, foreign);
  const long = errorFromResponse(502, "", JSON.stringify({ ...foreign, detail: "x".repeat(100_000) }));
  assert.equal(long.message, `Bad Gateway: ${"x".repeat(200)}… (100000 characters)`);
});
