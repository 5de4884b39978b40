/**
 * How a startup failure names a configured value: its key, its variable and
 * the value cut short. The value reaches a failure twice, in the service's own
 * words and in the platform's (Deno quotes a host name or a path whole:
 * `invalid host '…'`, `mkdir '…'`), and a variable may hold 128 kB.
 *
 * @module
 */
import { envName, shownValue } from "../engine/config.ts";
import { MAX_QUOTED_WORD, quoted, shortMessage } from "../engine/quoted.ts";

/** `svc.persistence-dir (SVC_PERSISTENCE_DIR) = './data'`, the value cut short. */
export function describeKey(key: string, value: string): string {
  return `${key} (${envName(key)}) = ${shownValue(value)}`;
}

/** A platform failure's `text` about `value` (a host, a path), the value and any other long word cut short. */
export function failureAbout(text: string, value: string): string {
  return shortMessage(
    value.length > MAX_QUOTED_WORD ? text.replaceAll(value, quoted(value, MAX_QUOTED_WORD)) : text,
  );
}
