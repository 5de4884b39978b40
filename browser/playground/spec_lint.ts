/**
 * The spec editor's findings as you type: `validateSpec` (a local operation,
 * so it runs in the tab in both modes) on the parsed text.
 *
 * @module
 */
import { type Invoker, type Json, operations } from "../../engine/mod.ts";
import type { EditorFinding } from "./json_editor.ts";

/** A lint function over spec text for `<svc-json-editor>`. */
export function specLinter(invoker: () => Invoker | undefined): (text: string) => Promise<EditorFinding[]> {
  return async (text) => {
    const target = invoker();
    if (!target) return [];
    let spec: Json;
    try {
      spec = JSON.parse(text);
    } catch {
      return [];
    }
    const report = await target.invoke(operations.validateSpec, { spec: spec as never });
    return [
      ...report.errors.map((f) => ({ ...f, severity: "error" as const })),
      ...report.warnings.map((f) => ({ ...f, severity: "warning" as const })),
    ];
  };
}
