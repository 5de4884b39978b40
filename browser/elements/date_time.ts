/**
 * Date-times and times between the browser's controls and RFC 3339, the text
 * JSON Schema's `date-time` and `time` formats accept (ajv-formats: seconds and
 * a UTC offset required). A `datetime-local` control gives local wall-clock
 * text without seconds ("2024-05-06T07:08"), a `time` control "07:08".
 *
 * - A date-time is an instant: shown in the browser's time zone, written in UTC
 *   ("2024-05-06T05:08:00Z" from 07:08 in Berlin in May).
 * - A time is a time of day: shown as written (its hours, minutes and seconds,
 *   whatever its offset), written with seconds and the browser's current UTC
 *   offset ("07:08:00+02:00"), so the same wall-clock time reads back.
 *
 * A stored value without an offset is shown as written; one the control cannot
 * show (not a date-time or time at all) shows empty.
 *
 * @module
 */

const DATE_TIME = /^(\d{4}-\d\d-\d\d)[Tt ](\d\d:\d\d)(?::(\d\d)(?:\.\d+)?)?([Zz]|[+-]\d\d(?::?\d\d)?)?$/;
const TIME = /^(\d\d:\d\d)(?::(\d\d)(?:\.\d+)?)?([Zz]|[+-]\d\d(?::?\d\d)?)?$/;

const two = (n: number) => String(n).padStart(2, "0");

/** "HH:MM", with ":SS" unless the seconds are zero (what the controls show). */
function clock(hoursMinutes: string, seconds: string | undefined): string {
  return seconds && seconds !== "00" ? `${hoursMinutes}:${seconds}` : hoursMinutes;
}

/** The text a `datetime-local` control shows for a stored date-time ("" when it cannot show it). */
export function dateTimeControlText(stored: string): string {
  const match = DATE_TIME.exec(stored);
  if (!match) return "";
  const [, date, hoursMinutes, seconds, offset] = match;
  if (!offset) return `${date}T${clock(hoursMinutes, seconds)}`;
  const at = new Date(stored.replace(" ", "T"));
  if (Number.isNaN(at.getTime())) return "";
  const local = `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`;
  return `${local}T${clock(`${two(at.getHours())}:${two(at.getMinutes())}`, two(at.getSeconds()))}`;
}

/** The RFC 3339 date-time (UTC) of a `datetime-local` control's text; the text itself when it is none. */
export function dateTimeOfControl(text: string): string {
  const match = DATE_TIME.exec(text);
  if (!match || match[4]) return text;
  const at = new Date(`${match[1]}T${match[2]}:${match[3] ?? "00"}`);
  return Number.isNaN(at.getTime()) ? text : at.toISOString().replace(/\.000Z$/, "Z");
}

/** The text a `time` control shows for a stored time ("" when it cannot show it). */
export function timeControlText(stored: string): string {
  const match = TIME.exec(stored);
  return match ? clock(match[1], match[2]) : "";
}

/** The RFC 3339 time (with the browser's current UTC offset) of a `time` control's text. */
export function timeOfControl(text: string): string {
  const match = TIME.exec(text);
  if (!match || match[3]) return text;
  const minutes = -new Date().getTimezoneOffset();
  const offset = minutes === 0
    ? "Z"
    : `${minutes < 0 ? "-" : "+"}${two(Math.floor(Math.abs(minutes) / 60))}:${two(Math.abs(minutes) % 60)}`;
  return `${match[1]}:${match[2] ?? "00"}${offset}`;
}
