import assert from "node:assert/strict";
import { ServiceError } from "../errors.ts";
import { decodeBase64, encodeBase64 } from "./base64.ts";

Deno.test("base64 round-trips every byte value, including large inputs", () => {
  const bytes = new Uint8Array(70_000).map((_, i) => i % 256);
  assert.deepEqual(decodeBase64(encodeBase64(bytes)), bytes);
  assert.equal(encodeBase64(new TextEncoder().encode("hello")), "aGVsbG8=");
  assert.equal(encodeBase64(new Uint8Array()), "");
});

Deno.test("decodeBase64 tolerates whitespace", () => {
  assert.equal(new TextDecoder().decode(decodeBase64("aGVs\nbG8=")), "hello");
});

Deno.test("decodeBase64 rejects malformed input with a 400 naming the field", () => {
  for (const bad of ["not base64!", "a", "aGVsbG8===", "aGVs*G8="]) {
    assert.throws(() => decodeBase64(bad, "data"), (err: unknown) => {
      assert.ok(err instanceof ServiceError);
      assert.equal(err.kind, "bad_request");
      assert.equal(err.message, "'data' is not valid base64");
      return true;
    }, bad);
  }
});
