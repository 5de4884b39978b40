import assert from "node:assert/strict";
import { maskCredentials, quoted, shortMessage } from "./quoted.ts";

Deno.test("quoted keeps short text and cuts long text to its first characters and its length", () => {
  assert.equal(quoted("abc", 3), "abc");
  assert.equal(quoted("abcd", 3), "abc… (4 characters)");
  // A surrogate pair is not split.
  assert.equal(quoted("ab😀", 3), "ab… (4 characters)");
});

Deno.test("shortMessage cuts each over-long word of input, keeps the rest, and leaves its own output alone", () => {
  const id = "x".repeat(2_000_000);
  const short = shortMessage(`Model '${id}' not found`);
  assert.equal(short, `Model '${"x".repeat(200)}… (2000000 characters)' not found`);
  assert.equal(shortMessage(short), short, "a remote client rebuilding the error keeps the message");
  assert.equal(shortMessage(`Model '${"x".repeat(200)}' not found`), `Model '${"x".repeat(200)}' not found`);
  // Input with spaces: the whole message is cut to its first 1000 characters.
  const spaced = shortMessage(`Bad expression: ${"1 + ".repeat(100_000)}`);
  assert.ok(spaced.length < 1100, `${spaced.length}`);
  assert.match(spaced, /^Bad expression: 1 \+ 1 \+ .*… \(400016 characters\)$/);
  assert.equal(shortMessage(spaced), spaced);
});

Deno.test("shortMessage leaves a value the engine quoted already as it was quoted", () => {
  // The D3030 of `$number($pad('', 40000000, '1'))`: its value cut to 1000 characters by `quoted`.
  const message = `D3030: Unable to cast value to a number: "${
    quoted("1".repeat(40_000_000))
  }" (position 392)`;
  assert.equal(shortMessage(message), message);
  assert.match(shortMessage(message), /"1{1000}… \(40000000 characters\)"/);
});

Deno.test("maskCredentials masks the credentials of every URL in a text, the user named when a password follows", () => {
  assert.equal(
    maskCredentials(
      "connect postgres://svc:hunter2@db:5432/svc failed (ECONNRESET) then https://tok3n@gw.example/v1",
    ),
    "connect postgres://svc:***@db:5432/svc failed (ECONNRESET) then https://***@gw.example/v1",
  );
  // The host starts after the last @ before the path, as a URL parser reads it: a raw @ in a password stays hidden.
  assert.equal(maskCredentials("'postgres://svc:p@ss:w0rd@db/svc'"), "'postgres://svc:***@db/svc'");
  const plain = "https://gw.example:443/v1?to=a@b.example and mail a@b.example";
  assert.equal(maskCredentials(plain), plain);
});
