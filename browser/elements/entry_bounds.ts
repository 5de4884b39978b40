/**
 * Bounds a component sets on what a person enters, which the model itself
 * does not check (SPEC: a slider's or stepper's `min` and `max`, a file
 * upload's `allowedMediaTypes`, `minSize`, `maxSize`, `minFiles`, `maxFiles`):
 * the renderer refuses an entry outside them before writing anything, with
 * the bound named beside the field. A region selector's choices follow the
 * country it `dependsOn`.
 *
 * @module
 */
import type { EvaluatedComponent, Json } from "../../engine/mod.ts";

/**
 * Why a number is outside the component's `min` and `max` (the texts a wizard's step check gives, so a field
 * shows one of them once), or none.
 */
export function numberRefusals(c: EvaluatedComponent, value: Json | undefined): string[] {
  if (typeof value !== "number") return [];
  return [
    ...(typeof c.min === "number" && value < c.min ? [`must be >= ${c.min}`] : []),
    ...(typeof c.max === "number" && value > c.max ? [`must be <= ${c.max}`] : []),
  ];
}

/** Whether media type `type` is among `allowed` (`image/*` and `*\/*` match a family; parameters ignored). */
export function mediaTypeAllowed(type: string, allowed: string[]): boolean {
  const bare = (t: string) => t.split(";")[0].trim().toLowerCase();
  const [family] = bare(type).split("/");
  return allowed.some((a) => {
    const want = bare(a);
    return want === bare(type) || want === "*/*" || (want.endsWith("/*") && want.slice(0, -2) === family);
  });
}

const bytes = (n: number) => `${n} byte${n === 1 ? "" : "s"}`;
const fileCount = (n: number) => `${n} file${n === 1 ? "" : "s"}`;

/** Why the field `c` does not take the chosen `files` (its bounds named), or none. */
export function uploadRefusals(c: EvaluatedComponent, files: readonly File[]): string[] {
  const texts: string[] = [];
  // A single upload takes one file whatever its count bounds say (the browser offers no more).
  if (c.multiple === true) {
    if (typeof c.maxFiles === "number" && files.length > c.maxFiles) {
      texts.push(`${fileCount(files.length)} chosen: at most ${fileCount(c.maxFiles)} allowed`);
    }
    if (typeof c.minFiles === "number" && files.length < c.minFiles) {
      texts.push(`${fileCount(files.length)} chosen: at least ${fileCount(c.minFiles)} needed`);
    }
  }
  const allowed = Array.isArray(c.allowedMediaTypes)
    ? c.allowedMediaTypes.filter((t): t is string => typeof t === "string")
    : [];
  for (const file of files) {
    if (allowed.length && !mediaTypeAllowed(file.type, allowed)) {
      texts.push(`${file.name} is ${file.type || "of an unknown type"}: allowed are ${allowed.join(", ")}`);
    }
    if (typeof c.maxSize === "number" && file.size > c.maxSize) {
      texts.push(`${file.name} is ${bytes(file.size)}: at most ${bytes(c.maxSize)} allowed`);
    }
    if (typeof c.minSize === "number" && file.size < c.minSize) {
      texts.push(`${file.name} is ${bytes(file.size)}: at least ${bytes(c.minSize)} needed`);
    }
  }
  return texts;
}

/**
 * The country an option of a region selector belongs to: its `country` member, else the country part of an
 * ISO 3166-2 value (`DE-BE`); none when it names neither (then it is offered for every country).
 */
export function countryOfOption(option: Json): string | undefined {
  const record = option !== null && typeof option === "object" && !Array.isArray(option) ? option : undefined;
  if (typeof record?.country === "string") return record.country.toUpperCase();
  const value = record ? record.value : option;
  const match = typeof value === "string" ? /^([A-Za-z]{2})-[A-Za-z0-9]{1,3}$/.exec(value) : null;
  return match ? match[1].toUpperCase() : undefined;
}

/**
 * The options a region selector offers: with `dependsOn`, those of the country chosen there
 * (`dependsOnValue`, which the view element reads) and those naming no country; all of them otherwise.
 */
export function regionOptions(c: EvaluatedComponent): Json[] {
  const list = Array.isArray(c.options) ? c.options : [];
  if (typeof c.dependsOn !== "string") return list;
  const country = typeof c.dependsOnValue === "string" ? c.dependsOnValue.toUpperCase() : undefined;
  return list.filter((o) => {
    const of = countryOfOption(o);
    return of === undefined || of === country;
  });
}
