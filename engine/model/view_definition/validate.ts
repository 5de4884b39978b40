/**
 * Write-time validation of a view definition (SPEC.md "View definition"): the
 * errors refuse the spec with 422 at create and evolve; the warnings point at
 * what will not work as written but does not stop the spec.
 *
 * Errors: the definition must be an object with a `views` array and a
 * `defaultView` naming one of them; view ids unique; every component an object
 * with a non-empty `id` and `type`; component ids unique per view (nested
 * components included); `sectionList.itemView` names an existing view without
 * leading back to itself, a handler's `navigate` and a menu item's `targetView`
 * an existing view; a `ratingField` at most {@link RATING_CHOICES} choices; addresses (`bind`, `bindFrom`, `bindTo`, `dependsOn`,
 * key-value item `bind`) canonical; state members a boolean, a string or null;
 * handlers objects; nested collections arrays.
 *
 * Warnings: view JSONata that does not compile (evaluation would mark the
 * component with `error`), an unknown view layout, a section list without `bind`,
 * a component `type` no kind has (drawn as a basic input) and a member of a view
 * or component no type knows (likely typos, `../unknown_members.ts`).
 *
 * View JSONata that compiles is held to the model's expression scope: a call
 * of a function nothing defines is an error, a bare unbound variable a warning.
 *
 * @module
 */
import type { Finding } from "../../errors.ts";
import type { CompiledExpression, ExpressionCompiler } from "../../expr/compiler.ts";
import { isObject, type Json, type JsonObject } from "../../json/value.ts";
import { formatPath, isPrefixOf, parsePath, pathOrNull, type Segment, WILDCARD } from "../../json/path.ts";
import type { NamedAddress } from "../undeclared_addresses.ts";
import { ExpressionScope } from "../expression_scope.ts";
import { schemaDef, unknownName, warnUnknownMembers } from "../unknown_members.ts";
import {
  COMPONENT_GROUPS,
  DISPLAY_MEMBERS,
  groupOf,
  HANDLER_MEMBERS,
  PATH_MEMBERS,
  STATE_MEMBERS,
} from "./groups.ts";

/** The most choices a `ratingField` offers (`max - min + 1`): each is a control on the page. */
export const RATING_CHOICES = 100;

/** Layouts a view may declare. */
export const VIEW_LAYOUTS = ["vertical", "horizontal", "grid", "tabs", "wizard"];

/** Every known component type. */
const COMPONENT_TYPES = COMPONENT_GROUPS.flatMap((group) => group.types);

/**
 * The type an unknown one most likely means: `numericField` for a word authors use for a number
 * (`integerField`), else the shortest type holding it (`select`, `checkbox`, `date`),
 * else by spelling ("did you mean" of `../unknown_members.ts`); the closest spelling first would offer `tabs`
 * for `table`.
 */
function intendedType(name: string): string | undefined {
  const bare = name.toLowerCase().replace(/(field|input)$/, "");
  return /^(number|int(eger)?)$/.test(bare)
    ? "numericField"
    : COMPONENT_TYPES.filter((type) => bare.length > 3 && type.toLowerCase().includes(bare))
      .sort((a, b) => a.length - b.length)[0];
}
/** Members a component of some type reads: the schema's, every kind's, and `className`. */
const COMPONENT_MEMBERS = [
  ...new Set([
    ...Object.keys(schemaDef("Component").properties as JsonObject),
    ...COMPONENT_GROUPS.flatMap((group) => group.members),
    "className",
  ]),
];

/** Errors and warnings of a view definition. */
export interface ViewFindings {
  errors: Finding[];
  warnings: Finding[];
}

/**
 * Validates a spec's `viewDefinition` (absent or null is valid). `location` is
 * the prefix of every finding's location; each address the views bind is added
 * to `addresses`, for the spec's check against its schema (`../undeclared_addresses.ts`).
 */
export function validateViewDefinition(
  definition: unknown,
  compiler: ExpressionCompiler,
  location = "viewDefinition",
  scope: ExpressionScope = new ExpressionScope(),
  addresses: NamedAddress[] = [],
): ViewFindings {
  const findings: ViewFindings = { errors: [], warnings: [] };
  if (definition === undefined || definition === null) return findings;
  const error = (at: string, message: string) => findings.errors.push({ location: at, message });
  const warn = (at: string, message: string) => findings.warnings.push({ location: at, message });
  if (!isObject(definition)) {
    error(location, "viewDefinition must be an object with 'defaultView' and a 'views' array");
    return findings;
  }
  if (
    definition.renderer !== undefined && definition.renderer !== null && definition.renderer !== "builtin"
  ) {
    error(`${location}.renderer`, "renderer is reserved: the only renderer is 'builtin'");
  }
  if (!Array.isArray(definition.views)) {
    error(`${location}.views`, "views is required and must be an array of views");
    return findings;
  }
  const views = definition.views;
  const viewIds = new Set<string>();
  views.forEach((view, i) => {
    if (!isObject(view)) return;
    if (typeof view.id !== "string" || view.id.trim() === "") return;
    if (viewIds.has(view.id)) error(`${location}.views[${i}].id`, `duplicate view id '${view.id}'`);
    viewIds.add(view.id);
  });
  const known = () => [...viewIds].map((id) => `'${id}'`).join(", ") || "none";

  if (typeof definition.defaultView !== "string" || definition.defaultView === "") {
    error(`${location}.defaultView`, "defaultView is required: the id of a view in views");
  } else if (!viewIds.has(definition.defaultView)) {
    error(
      `${location}.defaultView`,
      `defaultView '${definition.defaultView}' names no view (views: ${known()})`,
    );
  }

  const compiles = (source: string, at: string) => {
    let compiled: CompiledExpression;
    try {
      compiled = compiler.compile(source);
    } catch (err) {
      return warn(
        at,
        `JSONata compile error: ${(err as Error).message}; evaluation marks the component with 'error'`,
      );
    }
    scope.check(compiled.ast, at, findings);
  };
  const viewTarget = (value: Json, at: string, member: string) => {
    if (value === undefined || value === null) return;
    if (typeof value !== "string" || !viewIds.has(value)) {
      error(at, `${member} ${JSON.stringify(value)} names no view (views: ${known()})`);
    }
  };
  const handler = (value: Json, at: string) => {
    if (!isObject(value)) return error(at, "an event handler must be an object {mutations?, navigate?}");
    if (value.mutations !== undefined && value.mutations !== null) {
      if (typeof value.mutations !== "string") {
        error(`${at}.mutations`, "mutations must be a JSONata string yielding a map of address to value");
      } else compiles(value.mutations, `${at}.mutations`);
    }
    viewTarget(value.navigate, `${at}.navigate`, "navigate");
  };
  const rating = (c: JsonObject, at: string) => {
    for (const member of ["min", "max"]) {
      const value = c[member];
      if (value !== undefined && value !== null && !Number.isInteger(value)) {
        error(`${at}.${member}`, `a ratingField's ${member} must be an integer`);
      }
    }
    const min = Number.isInteger(c.min) ? c.min as number : 1;
    const max = Number.isInteger(c.max) ? c.max as number : 5;
    if (max < min || max - min + 1 > RATING_CHOICES) {
      error(
        `${at}.max`,
        `a ratingField offers 1 to ${RATING_CHOICES} choices (max - min + 1), not ${max - min + 1}`,
      );
    }
  };
  /**
   * `elements`: those of the section lists the component repeats in (`$.lines[*]`), unrooted binds' base;
   * an item view named by several lists has one per list.
   */
  const address = (value: Json, at: string, elements: Segment[][]) => {
    const parsed = parsePath(value, elements[0]);
    if (!parsed.ok) return error(at, parsed.message);
    addresses.push({ path: parsed.path, at, verb: "binds" });
    const follows = elements.find((element) => isPrefixOf(element, parsed.path));
    const misses = follows && elements.find((element) => !isPrefixOf(element, parsed.path));
    if (misses) {
      const lists = `every ${arrayAddress(follows)} element under the list over ${arrayAddress(misses)}`;
      warn(at, `'${value}' reads ${lists}: give each list its own itemView`);
    }
  };
  const listOf = (value: Json, at: string, what: string): Json[] => {
    if (value === undefined || value === null) return [];
    if (Array.isArray(value)) return value;
    error(at, `${what} must be an array`);
    return [];
  };
  const arrayOf = (value: Json, at: string, what: string): JsonObject[] => {
    return listOf(value, at, what).filter((entry, j) => {
      if (isObject(entry)) return true;
      error(`${at}[${j}]`, `an entry of ${what} must be an object`);
      return false;
    }) as JsonObject[];
  };

  /**
   * The elements each item view repeats for, one per list naming it. A list in an item view takes that
   * view's elements as found so far: those of the lists in the views declared before it.
   */
  const itemElements = new Map<Json, Segment[][]>();
  const findLists = (components: Json, elements: Segment[][]) => {
    if (!Array.isArray(components)) return;
    for (const c of components) {
      const inner = listElements(c, elements);
      // A section list is an object: listElements gives none for anything else.
      const list = c as JsonObject;
      if (inner) itemElements.set(list.itemView, [...itemElements.get(list.itemView) ?? [], ...inner]);
      findLists(isObject(c) && c.components, inner ?? elements);
    }
  };
  for (const view of views) if (isObject(view)) findLists(view.components, itemElements.get(view.id) ?? []);

  /** View ids each view's section lists expand (for cycle detection). */
  const itemViews = new Map<string, { target: string; at: string }[]>();

  /** `elements`: as {@link address}'s. */
  const component = (c: Json, at: string, viewId: string, ids: Set<string>, elements: Segment[][]) => {
    if (!isObject(c)) return error(at, "a component must be an object with 'id' and 'type'");
    if (typeof c.id !== "string" || c.id.trim() === "") {
      error(`${at}.id`, "component id is required (a non-empty string)");
    } else if (ids.has(c.id)) {
      error(`${at}.id`, `duplicate component id '${c.id}' in view '${viewId}'`);
    } else ids.add(c.id);
    if (typeof c.type !== "string" || c.type.trim() === "") {
      error(`${at}.type`, "component type is required (a non-empty string)");
    } else if (!groupOf(c.type)) {
      const outcome = "is drawn as a plain input";
      warn(
        `${at}.type`,
        unknownName("component type", c.type, outcome, COMPONENT_TYPES, intendedType(c.type)),
      );
    }
    warnUnknownMembers(c, schemaDef("Component"), at, warn, COMPONENT_MEMBERS);
    for (const member of PATH_MEMBERS) {
      if (c[member] !== undefined && c[member] !== null) address(c[member], `${at}.${member}`, elements);
    }
    for (const member of STATE_MEMBERS) {
      const value = c[member];
      if (typeof value === "string") compiles(value, `${at}.${member}`);
      else if (value !== undefined && value !== null && typeof value !== "boolean") {
        error(`${at}.${member}`, `${member} must be a boolean, a JSONata string or null`);
      }
    }
    for (const member of DISPLAY_MEMBERS) {
      const value = c[member];
      if (typeof value === "string" && value.includes("$")) compiles(value, `${at}.${member}`);
    }
    for (const member of HANDLER_MEMBERS) {
      if (c[member] !== undefined && c[member] !== null) handler(c[member], `${at}.${member}`);
    }
    arrayOf(c.items, `${at}.items`, "items").forEach((item, j) => {
      if (item.bind !== undefined && item.bind !== null) {
        address(item.bind, `${at}.items[${j}].bind`, elements);
      } else if (typeof item.text === "string" && item.text.includes("$")) {
        compiles(item.text, `${at}.items[${j}].text`);
      }
    });
    arrayOf(c.menuItems, `${at}.menuItems`, "menuItems").forEach((item, j) => {
      viewTarget(item.targetView, `${at}.menuItems[${j}].targetView`, "targetView");
    });
    for (const member of ["options", "tableColumns", "chartSeries"]) {
      const entries = arrayOf(c[member], `${at}.${member}`, member);
      // A table's bind holds its rows; a column names a member of a row (`text`, `due.date`), `$` forms aside.
      const rows = member === "tableColumns" && c.type === "dataTable" &&
        addresses.find((named) => named.at === `${at}.bind`);
      if (rows) {
        rows.columns = entries.flatMap(({ field }, j) =>
          typeof field === "string" && !/[$[]/.test(field)
            ? [{
              path: [...rows.path, WILDCARD, ...field.split(".")],
              at: `${at}.${member}[${j}].field`,
              verb: "binds",
            }]
            : []
        );
      }
    }
    if (c.type === "ratingField") rating(c, at);
    if (c.type === "sectionList") {
      if (c.bind === undefined || c.bind === null) {
        warn(at, "a sectionList without bind repeats nothing: bind it to an array");
      }
      if (c.itemView !== undefined && c.itemView !== null) {
        if (typeof c.itemView !== "string" || !viewIds.has(c.itemView)) {
          error(`${at}.itemView`, `itemView ${JSON.stringify(c.itemView)} names no view (views: ${known()})`);
        } else {
          itemViews.get(viewId)!.push({ target: c.itemView, at: `${at}.itemView` });
        }
      }
    }
    listOf(c.components, `${at}.components`, "components").forEach((child, j) => {
      component(child, `${at}.components[${j}]`, viewId, ids, listElements(c, elements) ?? elements);
    });
  };

  views.forEach((view, i) => {
    const at = `${location}.views[${i}]`;
    if (!isObject(view)) return error(at, "a view must be an object with 'id' and 'components'");
    if (typeof view.id !== "string" || view.id.trim() === "") {
      error(`${at}.id`, "view id is required (a non-empty string)");
    }
    const viewId = typeof view.id === "string" ? view.id : `#${i}`;
    if (!itemViews.has(viewId)) itemViews.set(viewId, []);
    if (view.layout !== undefined && view.layout !== null && !VIEW_LAYOUTS.includes(view.layout as string)) {
      warn(
        `${at}.layout`,
        `unknown layout ${JSON.stringify(view.layout)}: use one of ${VIEW_LAYOUTS.join(", ")}`,
      );
    }
    warnUnknownMembers(view, schemaDef("View"), at, warn);
    for (const member of ["onOpen", "onClose"]) {
      if (view[member] !== undefined && view[member] !== null) handler(view[member], `${at}.${member}`);
    }
    const ids = new Set<string>();
    listOf(view.components, `${at}.components`, "components").forEach((c, j) => {
      component(c, `${at}.components[${j}]`, viewId, ids, itemElements.get(viewId) ?? []);
    });
  });

  for (const cycle of itemViewCycles(itemViews)) {
    error(
      cycle.at,
      `itemView '${cycle.target}' leads back to view '${cycle.from}': a section list cannot contain itself`,
    );
  }
  return findings;
}

/** Section list references that close a cycle of views (each reported once, at its reference). */
function itemViewCycles(
  edges: Map<string, { target: string; at: string }[]>,
): { from: string; target: string; at: string }[] {
  const reaches = (from: string, goal: string, seen = new Set<string>()): boolean => {
    if (from === goal) return true;
    if (seen.has(from)) return false;
    seen.add(from);
    return (edges.get(from) ?? []).some((edge) => reaches(edge.target, goal, seen));
  };
  const cycles: { from: string; target: string; at: string }[] = [];
  for (const [from, refs] of edges) {
    for (const ref of refs) if (reaches(ref.target, from)) cycles.push({ from, ...ref });
  }
  return cycles;
}

/**
 * The elements a section list repeats for (`$.lines[*]` for a list bound to `$.lines`), undefined for another
 * component. An unrooted bind (refused, with its rewrite) goes over an array under each enclosing element.
 */
function listElements(c: Json, enclosing: Segment[][]): Segment[][] | undefined {
  if (!isObject(c) || c.type !== "sectionList") return undefined;
  const elements = [];
  for (const base of enclosing.length ? enclosing : [[]]) {
    const parsed = parsePath(c.bind, base);
    const path = parsed.ok ? parsed.path : pathOrNull(parsed.canonical);
    if (!path) return undefined; // not an address under any base
    elements.push([...path, WILDCARD]);
  }
  return elements;
}

/** The array a list element belongs to, as an address (`$.orders[*].lines` for `$.orders[*].lines[*]`). */
function arrayAddress(element: Segment[]): string {
  return formatPath(element.slice(0, -1));
}
