/**
 * Typos in the addresses a spec's tests, views and meta derivations name: a
 * test writing or expecting, a view binding, or a meta derivation setting the
 * meta of, a field the schema does not declare and no derivation produces
 * validates, then fails as `absent`, shows an input nothing reads or sets
 * meta nothing meets. Each is a warning at the address, as an expression's read is
 * (`./undeclared_reads.ts`); so is a `dataTable` bound to a field whose type
 * is not an array (it shows no rows), and a column naming no member of a row.
 *
 * @module
 */
import type { Finding } from "../errors.ts";
import { PathIndex } from "../json/path_index.ts";
import type { Segment } from "../json/path.ts";
import { type SchemaIndex, typeAdmits } from "./schema_index.ts";
import { undeclaredField } from "./undeclared_reads.ts";

/** An address a test or a view names, where, and what it does there (`writes`, `expects`, `binds`). */
export interface NamedAddress {
  path: Segment[];
  at: string;
  verb: string;
  /** A `dataTable`'s bind: the addresses of its columns under each row. */
  columns?: NamedAddress[];
}

/** Warnings for named addresses of undeclared, underived fields, and table binds of non-arrays. */
export function undeclaredAddresses(
  addresses: readonly NamedAddress[],
  schema: SchemaIndex,
  derivedTargets: readonly Segment[][],
): Finding[] {
  const produced = new PathIndex(derivedTargets, (target) => target);
  const warnings: Finding[] = [];
  const check = ({ path, at, verb, columns }: NamedAddress) => {
    const found = undeclaredField(schema, derivedTargets, path, produced);
    const type = schema.fragmentAt(path).type;
    const message = found
      ? `${verb} ${found.message}`
      : columns && !typeAdmits(type, "array") && `binds a ${type}, not an array of rows`;
    if (message) warnings.push({ location: at, message });
    else columns?.forEach(check);
  };
  addresses.forEach(check);
  return warnings;
}
