import assert from "node:assert/strict";
import { MAX_ORIGIN_LENGTH, normalizedOrigin } from "./origin.ts";

Deno.test("an Origin header compares in the form an origin list holds", () => {
  for (
    const header of [
      "https://app.example",
      "https://app.example/",
      " HTTPS://App.Example// ",
      "https://app.example:443",
      "HTTPS://APP.EXAMPLE:443/",
    ]
  ) {
    assert.equal(normalizedOrigin(header), "https://app.example", header);
  }
  assert.equal(normalizedOrigin("http://Localhost:80/"), "http://localhost");
  assert.equal(normalizedOrigin("http://localhost:5173/"), "http://localhost:5173");
  assert.equal(normalizedOrigin("http://[::1]:8080"), "http://[::1]:8080");
  // No bare origin: compared as written (so never equal to a listed origin), less slashes and case.
  assert.equal(normalizedOrigin("null"), "null");
  assert.equal(normalizedOrigin("Chrome-Extension://ABC/"), "chrome-extension://abc");
  assert.equal(normalizedOrigin("https://app.example/app"), "https://app.example/app");
  assert.equal(normalizedOrigin("https://user@app.example"), "https://user@app.example");
  assert.equal(normalizedOrigin("*"), "*");
});

Deno.test("a hostile Origin longer than any origin is compared as written, its slashes never scanned", () => {
  // 60,000 slashes after a listed origin held the server ~7 s per request: the trailing-slash regex
  // backtracked from every slash. No browser sends such a header; it stands for no listed origin.
  const padded = "https://app.example" + "/".repeat(60_000) + "x";
  assert.equal(normalizedOrigin(padded), padded);
  const slashed = "https://App.Example" + "/".repeat(MAX_ORIGIN_LENGTH);
  assert.equal(
    normalizedOrigin(slashed),
    slashed,
    "not https://app.example: past the bound nothing is normalised",
  );
  const atBound = "https://App.Example" + "/".repeat(MAX_ORIGIN_LENGTH - "https://App.Example".length);
  assert.equal(normalizedOrigin(atBound), "https://app.example");
});
