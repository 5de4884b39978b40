/**
 * Where a failed or flagged write's messages belong (the renderer shows them
 * next to their field): a schema violation (422) at its `violations[].path`; a
 * constraint (409 rollback, or a flagged one) at the fields written under its
 * `path` (or each of its paths) and the fields bound at it, else at the fields
 * whose write it refused; anything else at the field written, or at the form.
 * A path or constraint id the engine shortened (a name over 200 characters
 * comes back cut, `… (N characters)`) is matched to the one field or
 * constraint it was cut from; with no single one, the message goes to the
 * form, naming the path.
 *
 * @module
 */
import {
  type ConstraintViolation,
  formatPath,
  type Json,
  type ModelSpec,
  pathOrNull,
  patternMatches,
  type SchemaViolation,
  ServiceError,
} from "../../engine/mod.ts";
import { shortMessage } from "../../engine/quoted.ts";

/** One message for people. */
export interface FieldMessage {
  text: string;
  /**
   * `error`: the write was refused and the field still shows what was entered; `warning`: committed but
   * flagged, or refused while the field shows the model's value again.
   */
  severity: "error" | "warning";
}

/** Messages by canonical address; `""` holds those of the form as a whole. */
export type MessageMap = Map<string, FieldMessage[]>;

function add(map: MessageMap, address: string, message: FieldMessage): void {
  const list = map.get(address) ?? [];
  if (!list.some((m) => m.text === message.text)) list.push(message);
  map.set(address, list);
}

/** Canonical form of an address (unchanged when it does not parse). */
export function canonical(address: string): string {
  const path = pathOrNull(address);
  return path ? formatPath(path) : address;
}

/** What a string the engine shortened ends a cut run with. */
const SHORTENED = /… \(\d+ characters\)/;

/**
 * The one of `candidates` that `path` is, or was shortened from (see the
 * module); undefined when none or several are.
 */
function placeOf(path: string, candidates: string[]): string | undefined {
  const matches = new Set(candidates.map(canonical).filter((c) => shortMessage(c) === canonical(path)));
  return matches.size === 1 ? [...matches][0] : undefined;
}

/** Whether `address` lies at or under the (possibly wildcard) constraint path `pattern`. */
function under(pattern: string, address: string): boolean {
  const [p, a] = [pathOrNull(pattern), pathOrNull(address)];
  return !!p && !!a && a.length >= p.length && patternMatches(p, a.slice(0, p.length));
}

/** Where an address of the rows the model checked is now (`[]`: its row is gone); unchanged by default. */
export type Follow = (address: string) => string[];

/**
 * Places constraint messages: at the written fields under the constraint's path and the bound field at it,
 * else at the written fields, else at the form. `follow`: where the path (of the rows when the model
 * checked) is now.
 */
export function placeConstraints(
  map: MessageMap,
  violations: ConstraintViolation[],
  spec: ModelSpec | null,
  written: string[],
  bound: string[],
  severity: FieldMessage["severity"],
  follow: Follow = (address) => [address],
): void {
  for (const violation of violations) {
    // A shortened id names the one constraint it was cut from (ids are unique, so at most one is itself).
    const ids = spec?.constraints?.filter((c) => shortMessage(c.id) === violation.constraintId) ?? [];
    const guarded = [ids.length === 1 ? ids[0].path ?? [] : []].flat().filter((p) => typeof p === "string");
    const message = { text: violation.message, severity };
    // The paths are of the rows when the model checked: they are where those rows are now (none: gone).
    const paths = guarded.flatMap((p) => follow(p).slice(0, 1));
    const targets = paths.flatMap((path) => [
      ...written.filter((w) => under(path, w)),
      ...bound.filter((b) => canonical(b) === canonical(path)),
    ]);
    // With its rows gone and nothing written shown, the message has no field left to be about.
    const gone = guarded.length > 0 && !paths.length;
    const places = targets.length ? targets : written.length ? written : gone ? [] : [""];
    for (const place of places) add(map, canonical(place), message);
  }
}

/**
 * The messages of a refused write. `written`: the addresses the write named;
 * `bound`: the addresses the view shows (for constraint paths); `severity`:
 * `warning` when the fields show the model's values again (nothing refused
 * stays in them); `follow`: where a violation's or a constraint's path (of
 * the rows when the model checked) is now, when rows moved since. A refused
 * rule whose path guards other fields than those written is told at those
 * written too: they show the entries refused. A field the write did not name (one bound at a constraint's path beside the one
 * written) shows the model's value, which the refusal left alone: its message
 * is a warning, gone with the next write, rather than an error that stays on
 * a field that is fine (and holds a wizard step).
 */
export function messagesOfError(
  err: unknown,
  spec: ModelSpec | null,
  written: string[],
  bound: string[],
  severity: FieldMessage["severity"] = "error",
  follow: Follow = (address) => [address],
): MessageMap {
  const map: MessageMap = new Map();
  const body = err instanceof ServiceError ? err.body : undefined;
  const violations = (body?.violations ?? []) as Json[];
  if (err instanceof ServiceError && err.kind === "schema_violation" && violations.length) {
    for (const v of violations as unknown as SchemaViolation[]) {
      // The path is of the rows when the model checked the write: it goes where that row is now.
      const place = v.path ? follow(v.path)[0] : written[0] ?? "";
      if (place === undefined) continue;
      const field = placeOf(place, [...written, ...bound]);
      if (field || !SHORTENED.test(place)) add(map, field ?? canonical(place), { text: v.message, severity });
      // Shortened, and no one field it was cut from: at the form, naming it.
      else add(map, "", { text: `${place}: ${v.message}`, severity });
    }
  } else if (err instanceof ServiceError && err.kind === "constraint_violation" && violations.length) {
    for (const refused of violations as unknown as ConstraintViolation[]) {
      placeConstraints(map, [refused], spec, written, bound, severity, follow);
      // Its path guards other fields than those written (a rule on the quantity refusing a price): the fields
      // written show the entries refused, so they say why too, not only the field beside them.
      const told = (address: string) => map.get(canonical(address))?.some((m) => m.text === refused.message);
      if (!written.some(told)) {
        for (const place of written) add(map, canonical(place), { text: refused.message, severity });
      }
    }
  } else {
    const text = (err as Error)?.message ?? String(err);
    for (const place of written.length ? written : [""]) {
      add(map, canonical(place), { text, severity });
    }
  }
  for (const [address, list] of map) {
    if (address && !written.some((w) => under(w, address))) {
      map.set(address, list.map((m) => ({ ...m, severity: "warning" })));
    }
  }
  return map;
}
