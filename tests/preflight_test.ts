/** The runner's preflight results as they travel through the environment. */
import assert from "node:assert/strict";
import { downloadFailureReason, preflightResult, preflightValue } from "./preflight.ts";

Deno.test("a preflight result is 'available' or 'unavailable: <reason>' in the environment", () => {
  assert.equal(preflightValue({ available: true }), "available");
  assert.equal(preflightValue({ available: false, reason: "no network" }), "unavailable: no network");
  const read = (value: string | undefined) =>
    preflightResult("X", (name) => name === "X" ? value : undefined);
  assert.equal(read(undefined), undefined, "no runner: the test checks for itself");
  assert.deepEqual(read("available"), { available: true });
  assert.deepEqual(read("unavailable: no network"), { available: false, reason: "no network" });
});

Deno.test("the reason of a refused runtime download is deno compile's own line", () => {
  assert.equal(
    downloadFailureReason(
      "Download https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip\n" +
        "Caused by:\n    0: Setting up base binary.\n" +
        "    1: error sending request for url (https://dl.deno.land/x.zip): client error (Connect)\n",
    ),
    "error sending request for url (https://dl.deno.land/x.zip): client error (Connect)",
  );
  assert.equal(downloadFailureReason("error: something else"), "no network");
});
