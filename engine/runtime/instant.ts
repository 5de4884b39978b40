/**
 * ISO-8601 timestamps of real calendar instants: `Date.parse` alone rolls
 * February 30 over into March and reads hour 24 as the next midnight instead
 * of refusing them, and reads a date and time without a UTC offset in the
 * host's time zone, so the same request named another instant on another
 * server: a time of day must carry its offset (`Z`, `+05:30`).
 *
 * @module
 */

/** Year, month, day, then optional hour, minute, second and offset (required with a time; a date alone is UTC). */
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2})))?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether the fields of an {@link ISO_INSTANT} match name a real calendar instant. */
function onTheCalendar(match: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match.slice(1)
    .map((field) => Number(field ?? 0));
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  return day <= days && hour <= 23 && minute <= 59 && second <= 59 && offsetHours <= 23 &&
    offsetMinutes <= 59;
}

/** Epoch milliseconds of an ISO-8601 timestamp of a real calendar instant; NaN for anything else. */
export function isoInstant(text: string): number {
  const trimmed = text.trim();
  const match = ISO_INSTANT.exec(trimmed);
  return match && onTheCalendar(match) ? Date.parse(trimmed) : NaN;
}
