/**
 * Display formatting of values (SPEC.md "Formatting"): `currency` with the
 * short symbol of an ISO-4217 code (two decimals without one), `percent` appends a percent sign without
 * rescaling (7.5 shows as 7.5%), `number` and `integer` group digits; anything
 * else is shown as text, objects as JSON.
 *
 * @module
 */
import type { Json } from "../../engine/mod.ts";

/** A value as text for people. `null` and absent show as an empty string. */
export function formatValue(value: Json | undefined, format?: Json, currency?: Json): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") {
    switch (format) {
      case "currency":
        // Without an ISO-4217 code there is no symbol to show: two decimals, grouped.
        if (typeof currency !== "string") {
          return new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 })
            .format(value);
        }
        try {
          return new Intl.NumberFormat(undefined, {
            style: "currency",
            currency,
            currencyDisplay: "narrowSymbol",
          }).format(value);
        } catch {
          return `${value.toFixed(2)} ${currency ?? ""}`.trim();
        }
      case "percent":
        return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: 4 }).format(value)}%`;
      case "integer":
        return new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 }).format(value);
      case "number":
        return new Intl.NumberFormat(undefined, { maximumFractionDigits: 6 }).format(value);
      default:
        return String(value);
    }
  }
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "Yes" : "No";
  return JSON.stringify(value);
}
