/**
 * The targeted view tier of an evolution, applied to a copy of the view
 * definition JSON in this order: `upsertViews`, `removeViews`,
 * `removeComponents`, `upsertComponents`, `newDefaultView`. Whether the result
 * is a valid view definition is decided when the evolved spec is compiled.
 *
 * Components nest through their `components` arrays; ids are looked up through
 * the whole tree of one view.
 *
 * @module
 */
import type { Finding } from "../errors.ts";
import { isObject, type Json, type JsonObject } from "../json/value.ts";
import type { ModelSpec } from "../model/types.ts";
import { type ComponentPlacement, EXCLUSIVE_SECTIONS, type SpecEvolution } from "./evolution.ts";

/** A component found in a view: `siblings[index]`. */
interface Found {
  siblings: Json[];
  index: number;
  component: JsonObject;
}

function findComponent(components: Json[], id: string): Found | null {
  for (let index = 0; index < components.length; index++) {
    const component = components[index];
    if (!isObject(component)) continue;
    if (component.id === id) return { siblings: components, index, component };
    if (Array.isArray(component.components)) {
      const nested = findComponent(component.components, id);
      if (nested) return nested;
    }
  }
  return null;
}

function componentsOf(view: JsonObject): Json[] {
  if (!Array.isArray(view.components)) view.components = [];
  return view.components as Json[];
}

const VIEW_MEMBERS = EXCLUSIVE_SECTIONS.find((s) => s.section === "view")!.targeted;

/** Applies the targeted view members of `evolution` to `spec.viewDefinition`, in place. */
export function editViews(spec: ModelSpec, evolution: SpecEvolution, findings: Finding[]): void {
  const used = VIEW_MEMBERS.filter((member) => evolution[member] !== undefined);
  if (used.length === 0) return;
  let definition = spec.viewDefinition;
  if (!isObject(definition)) {
    const first = evolution.upsertViews?.[0]?.id;
    if (typeof first !== "string") {
      findings.push({
        location: used[0],
        message: "the model has no view definition: add views with upsertViews or newViewDefinition",
      });
      return;
    }
    definition = { defaultView: evolution.newDefaultView ?? first, views: [] };
  }
  if (!Array.isArray(definition.views)) definition.views = [];
  const views = definition.views as JsonObject[];
  const viewById = (id: string) => views.find((v) => isObject(v) && v.id === id);

  const removedViews = evolution.removeViews ?? [];
  (evolution.upsertViews ?? []).forEach((view, i) => {
    const location = `upsertViews[${i}]`;
    if (removedViews.includes(view.id as string)) {
      return findings.push({ location, message: `view '${view.id}' is both upserted and removed` });
    }
    if (evolution.upsertViews!.findIndex((v) => v.id === view.id) !== i) {
      return findings.push({ location, message: `view '${view.id}' is upserted twice` });
    }
    const index = views.findIndex((v) => isObject(v) && v.id === view.id);
    if (index >= 0) views[index] = view;
    else views.push(view);
  });
  removedViews.forEach((id, i) => {
    const index = views.findIndex((v) => isObject(v) && v.id === id);
    if (index < 0) findings.push({ location: `removeViews[${i}]`, message: `there is no view '${id}'` });
    else views.splice(index, 1);
  });

  const removed = new Set<string>();
  (evolution.removeComponents ?? []).forEach(({ viewId, componentId }, i) => {
    const location = `removeComponents[${i}]`;
    const view = viewById(viewId);
    if (!view) return findings.push({ location, message: `there is no view '${viewId}'` });
    removed.add(`${viewId}\u0000${componentId}`);
    const found = findComponent(componentsOf(view), componentId);
    if (!found) {
      return findings.push({ location, message: `view '${viewId}' has no component '${componentId}'` });
    }
    found.siblings.splice(found.index, 1);
  });

  (evolution.upsertComponents ?? []).forEach((placement, i) => {
    const location = `upsertComponents[${i}]`;
    const view = viewById(placement.viewId);
    if (!view) return findings.push({ location, message: `there is no view '${placement.viewId}'` });
    if (removed.has(`${placement.viewId}\u0000${placement.component.id}`)) {
      return findings.push({
        location,
        message:
          `component '${placement.component.id}' is both upserted and removed in view '${placement.viewId}'`,
      });
    }
    const problem = placeComponent(componentsOf(view), placement);
    if (problem) findings.push({ location, message: problem });
  });

  if (evolution.newDefaultView !== undefined) definition.defaultView = evolution.newDefaultView;
  spec.viewDefinition = definition;
}

/**
 * Replaces a component in place (found by id, neither `parentId` nor `beforeId`
 * given), or places it (moving an existing one): into `parentId`'s children or
 * the view root, before the sibling `beforeId` or at the end. Returns why it
 * cannot, or null.
 */
function placeComponent(
  root: Json[],
  { viewId, component, parentId, beforeId }: ComponentPlacement,
): string | null {
  const id = component.id as string;
  const existing = findComponent(root, id);
  if (existing && parentId === undefined && beforeId === undefined) {
    existing.siblings[existing.index] = component;
    return null;
  }
  if (beforeId === id) return `beforeId '${beforeId}' names the component itself`;
  if (parentId !== undefined) {
    if (parentId === id) return `parentId '${parentId}' names the component itself`;
    if (
      existing && Array.isArray(existing.component.components) &&
      findComponent(existing.component.components, parentId)
    ) {
      return `component '${id}' cannot move into its own descendant '${parentId}'`;
    }
    if (!findComponent(root, parentId)) return `view '${viewId}' has no component '${parentId}' (parentId)`;
  }
  const target = parentId === undefined ? root : componentsOf(findComponent(root, parentId)!.component);
  if (beforeId !== undefined && !target.some((c) => isObject(c) && c.id === beforeId)) {
    const where = parentId === undefined ? `the root of view '${viewId}'` : `component '${parentId}'`;
    return `beforeId '${beforeId}' is not a child of ${where}`;
  }
  if (existing) existing.siblings.splice(existing.index, 1);
  const index = beforeId === undefined
    ? target.length
    : target.findIndex((c) => isObject(c) && c.id === beforeId);
  target.splice(index, 0, component);
  return null;
}
