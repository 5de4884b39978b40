import assert from "node:assert/strict";
import { countryOfOption, mediaTypeAllowed, numberRefusals } from "./entry_bounds.ts";

Deno.test("media types match exactly, by family (image/*) or anything (*/*), parameters aside", () => {
  assert.equal(mediaTypeAllowed("image/png", ["image/png"]), true);
  assert.equal(mediaTypeAllowed("IMAGE/PNG", ["image/*"]), true);
  assert.equal(mediaTypeAllowed("text/plain; charset=utf-8", ["text/plain"]), true);
  assert.equal(mediaTypeAllowed("text/plain", ["image/*", "application/pdf"]), false);
  assert.equal(mediaTypeAllowed("", ["image/png"]), false);
  assert.equal(mediaTypeAllowed("", ["*/*"]), true);
});

Deno.test("a region option names its country by a member or an ISO 3166-2 value, else none", () => {
  assert.equal(countryOfOption({ value: "BE", label: "Berlin", country: "de" }), "DE");
  assert.equal(countryOfOption({ value: "FR-IDF", label: "Île-de-France" }), "FR");
  assert.equal(countryOfOption("US-CA"), "US");
  assert.equal(countryOfOption({ value: "BY", label: "Bavaria" }), undefined);
});

Deno.test("a number outside min and max is refused in the wizard check's words", () => {
  const c = { id: "n", type: "numericStepper", min: 0, max: 9 };
  assert.deepEqual(numberRefusals(c, 15), ["must be <= 9"]);
  assert.deepEqual(numberRefusals(c, -1), ["must be >= 0"]);
  assert.deepEqual(numberRefusals(c, 9), []);
  assert.deepEqual(numberRefusals(c, "x"), []);
});
