/**
 * What the renderer's row tests do over a model holding `lines`
 * (fixtures/lines_list.ts): read its lines, write as another writer would
 * (the page's own code), read the fields as they show.
 *
 * @module
 */
import type { Locator, Page } from "playwright-core";
import { stateOf } from "./embedded_spec.ts";

/** The `d` of each line of model `id`'s state. */
export async function linesOf(page: Page, id: string): Promise<string[]> {
  const state = await stateOf(page, id) as { lines: { d: string }[] };
  return state.lines.map((line) => line.d);
}

/** Another writer (the page's own code) keeps only the lines of model `id` whose `d` is in `kept`, in that order. */
export function keepOnly(page: Page, id: string, kept: string[]): Promise<void> {
  return page.evaluate(async ([id, kept]) => {
    const embed = await import("/svc-embed.js");
    // Read where mutate writes: a service of createModelService() would be one more, left open, per call.
    const { lines } = await embed.getState(id) as { lines: { d: string }[] };
    await embed.mutate(id, { "$.lines": kept.map((d) => lines.find((line) => line.d === d)!) });
  }, [id, kept] as const);
}

/** The values of the fields labelled `label`, as they show. */
export function valuesOf(view: Locator, label: string): Promise<string[]> {
  return view.getByLabel(label, { exact: true }).evaluateAll((inputs) =>
    inputs.map((input) => (input as HTMLInputElement).value)
  );
}
