import assert from "node:assert/strict";
import { dateTimeControlText, dateTimeOfControl, timeControlText, timeOfControl } from "./date_time.ts";

Deno.test("a date-time control's text becomes RFC 3339 in UTC, and reads back as the same local time", () => {
  const written = dateTimeOfControl("2024-05-06T07:08");
  assert.match(written, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
  assert.equal(new Date(written).getTime(), new Date(2024, 4, 6, 7, 8).getTime());
  assert.equal(dateTimeControlText(written), "2024-05-06T07:08");
  assert.equal(dateTimeControlText(dateTimeOfControl("2024-05-06T07:08:09")), "2024-05-06T07:08:09");
  // A value with an offset is an instant, shown in local time.
  assert.equal(
    new Date(dateTimeOfControl(dateTimeControlText("2024-05-06T07:08:00+05:30"))).toISOString(),
    "2024-05-06T01:38:00.000Z",
  );
});

Deno.test("a stored date-time without an offset shows as written; one the control cannot show, empty", () => {
  assert.equal(dateTimeControlText("2024-05-06T07:08:00"), "2024-05-06T07:08");
  assert.equal(dateTimeControlText("2024-05-06 07:08:30"), "2024-05-06T07:08:30");
  assert.equal(dateTimeControlText("2024-05-06"), "");
  assert.equal(dateTimeControlText("soon"), "");
  assert.equal(dateTimeControlText("2024-13-45T99:99:00Z"), "");
  // Text that is no date-time is written as it is, for the schema to judge.
  assert.equal(dateTimeOfControl("soon"), "soon");
});

Deno.test("a time control's text gets seconds and the browser's offset; a stored time shows its clock", () => {
  assert.match(timeOfControl("07:08"), /^07:08:00(Z|[+-]\d\d:\d\d)$/);
  assert.match(timeOfControl("07:08:09"), /^07:08:09(Z|[+-]\d\d:\d\d)$/);
  assert.equal(timeOfControl("7 am"), "7 am");
  assert.equal(timeControlText("07:08:00Z"), "07:08");
  assert.equal(timeControlText("07:08:09+02:00"), "07:08:09");
  assert.equal(timeControlText("07:08"), "07:08");
  assert.equal(timeControlText("noon"), "");
});
