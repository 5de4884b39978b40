/**
 * Evaluation of a view definition against a model's merged document and meta
 * cache into an {@link EvaluatedView} (SPEC.md "View definition").
 *
 * - Plain text (`label`, `placeholder`, …) is copied, never evaluated.
 * - State members (`visible`, `enabled`, `readOnly`, `required`): a boolean as
 *   is, a string always evaluated as JSONata (JSONata truthiness), null or
 *   absent inherited from the bound field's meta (`#relevant` false hides,
 *   `#read_only`, `#required`; `enabled` = not the effective readOnly); a
 *   field the model refuses writes to (schema `readOnly`, a derivation's
 *   target) is read-only too.
 * - Display members (`text`, `value`, `delta`, `caption`, `trend`) are JSONata
 *   only when the string contains a `$`; otherwise literal text.
 * - `value` is the bound field's current value (bind wins over a `value` member).
 * - Inside a section list element, `[*]` in addresses stands for that element
 *   and `$parent` is bound to it; ids of expanded components are prefixed by the
 *   element (`itemsList[0].itemName`) so they stay unique.
 * - A failing expression or address marks its component with `error` (members
 *   joined by `; `); the rest of the view evaluates normally.
 *
 * Every expression runs against the merged document with the model's bindings
 * (`$const`, the library's exports).
 *
 * @module
 */
import { notFound } from "../errors.ts";
import type { CompiledExpression } from "../expr/compiler.ts";
import { expandPattern, getAt } from "../json/document.ts";
import { cloneJson, isObject, type Json, type JsonObject } from "../json/value.ts";
import type { ModelRuntime } from "../runtime/runtime.ts";
import { truthy } from "../runtime/truthy.ts";
import type { CompiledModel } from "../model/compile.ts";
import { targetHolding } from "../model/target_index.ts";
import { formatPath, hasWildcard, parsePath, patternMatches, type Segment } from "../json/path.ts";
import { BASIC_INPUT, type ComponentGroup, groupOf } from "../model/view_definition/groups.ts";
import type { ComponentSpec, ViewDefinition, ViewSpec } from "../model/view_definition/types.ts";

/**
 * One evaluated component: `id`, `type` and the members of its record kind
 * (engine/model/view_definition/groups.ts), every member resolved, null members omitted.
 */
export interface EvaluatedComponent {
  id: string;
  type: string;
  [member: string]: Json;
}

/** The response of a view read. */
export interface EvaluatedView {
  modelId: string;
  viewId: string;
  /** The view's `label`, or its id when unlabeled. */
  title: string;
  /** The view's `layout` (`vertical` when absent). */
  layout: string;
  /** Grid columns of the view, when declared. */
  columns?: Json;
  /** The view's handlers, passed through for the client, when declared. */
  onOpen?: Json;
  onClose?: Json;
  components: EvaluatedComponent[];
}

/** The state a view is evaluated against. */
export interface ViewState {
  /** The merged document, lazy derivations evaluated. */
  doc: Json;
  /** The meta cache (`$.path#read_only` -> value). */
  meta: ReadonlyMap<string, Json>;
}

/** What an evaluated component depends on, for {@link viewDelta}. */
export interface ComponentAnchors {
  component: EvaluatedComponent;
  /** Concrete addresses it shows (bind, bindFrom, bindTo, item binds, status paths). */
  paths: Segment[][];
  /** The expressions it evaluated. */
  expressions: CompiledExpression[];
  /** The section list element `$parent` was bound to, if any. */
  element: Segment[] | null;
}

/** An evaluated view with the anchors of every component in it (nested ones included). */
export interface ViewEvaluation {
  view: EvaluatedView;
  anchors: ComponentAnchors[];
}

/** Where a component is evaluated: top level, or inside a section list element. */
interface Scope {
  idPrefix: string;
  element: Segment[] | null;
  elementValue: Json | undefined;
}

/** Resolves the address a component member holds, within the component's scope. */
type AddressOf = (member: string, value: Json | undefined) => Segment[] | undefined;

const TOP: Scope = { idPrefix: "", element: null, elementValue: undefined };
const FAILED = Symbol("failed");

/** File upload bounds that fall back to a meta value of the bound field. */
const UPLOAD_META: Record<string, string> = {
  minFiles: "min_items",
  maxFiles: "max_items",
  minSize: "min_size",
  maxSize: "max_size",
  allowedMediaTypes: "allowed_media_types",
};

/** The view definition of a model; 404 when it has none. */
export function viewDefinitionOf(model: CompiledModel): ViewDefinition {
  const definition = model.spec.viewDefinition;
  if (!isObject(definition)) {
    // What to do about it, in the words an evolution's view edit uses on such a model (evolve/view_edits.ts).
    throw notFound(
      `Model '${model.id}' has no view definition: add views with upsertViews or newViewDefinition`,
    );
  }
  return definition as ViewDefinition;
}

/** Refuses (404) a view id the model has no view for (or a model without a view definition). */
export function checkViewId(model: CompiledModel, viewId: string): void {
  if (!viewDefinitionOf(model).views.some((view) => view.id === viewId)) {
    throw notFound(`View '${viewId}' not found in model '${model.id}'`);
  }
}

/** The committed state of a runtime as views read it: lazy derivations evaluated. */
export async function viewStateOf(runtime: ModelRuntime): Promise<ViewState> {
  const doc = await runtime.readState();
  return { doc, meta: runtime.state.meta };
}

/** Evaluates the default view, or the view `viewId` (404 when unknown). */
export async function evaluateView(
  model: CompiledModel,
  state: ViewState,
  viewId?: string,
): Promise<EvaluatedView> {
  return (await evaluateViewWithAnchors(model, state, viewId)).view;
}

/** {@link evaluateView}, also returning what each component depends on. */
export async function evaluateViewWithAnchors(
  model: CompiledModel,
  state: ViewState,
  viewId?: string,
): Promise<ViewEvaluation> {
  const definition = viewDefinitionOf(model);
  const views = new Map<string, ViewSpec>(definition.views.map((v) => [v.id, v]));
  const id = viewId ?? definition.defaultView;
  const view = views.get(id);
  if (!view) throw notFound(`View '${id}' not found in model '${model.id}'`);
  const evaluator = new ViewEvaluator(model, state, views);
  const components = await evaluator.components(view.components, TOP);
  const extras = ["columns", "onOpen", "onClose"].filter((m) => view[m] !== undefined && view[m] !== null);
  const result: EvaluatedView = {
    modelId: model.id,
    viewId: id,
    title: typeof view.label === "string" ? view.label : id,
    layout: typeof view.layout === "string" ? view.layout : "vertical",
    ...Object.fromEntries(extras.map((m) => [m, cloneJson(view[m])])),
    components,
  };
  return { view: result, anchors: evaluator.anchors };
}

/** Replaces the leading wildcards of `path` that an enclosing element fixes. */
function resolveInScope(path: Segment[], element: Segment[] | null): Segment[] {
  if (!element || path.length < element.length || !patternMatches(path.slice(0, element.length), element)) {
    return path;
  }
  return [...element, ...path.slice(element.length)];
}

function isBlobRef(value: Json | undefined): value is JsonObject & { $blobId: string } {
  return isObject(value) && typeof value.$blobId === "string";
}

class ViewEvaluator {
  readonly anchors: ComponentAnchors[] = [];
  readonly #model: CompiledModel;
  readonly #state: ViewState;
  readonly #views: Map<string, ViewSpec>;

  constructor(model: CompiledModel, state: ViewState, views: Map<string, ViewSpec>) {
    this.#model = model;
    this.#state = state;
    this.#views = views;
  }

  async components(list: Json | undefined, scope: Scope): Promise<EvaluatedComponent[]> {
    const out: EvaluatedComponent[] = [];
    for (const spec of Array.isArray(list) ? list : []) {
      if (isObject(spec)) out.push(await this.#component(spec as ComponentSpec, scope));
    }
    return out;
  }

  /** The value at an address; with wildcards left, the values of every match. */
  #valueAt(path: Segment[]): Json | undefined {
    const doc = this.#state.doc;
    if (!hasWildcard(path)) return getAt(doc, path);
    return expandPattern(doc, path).map((p) => getAt(doc, p)).filter((v): v is Json => v !== undefined);
  }

  #metaAt(path: Segment[] | undefined, property: string): Json | undefined {
    if (!path || hasWildcard(path)) return undefined;
    return this.#state.meta.get(`${formatPath(path)}#${property}`);
  }

  /** `#relevant` false (present, not null, not truthy) hides. */
  #hiddenByMeta(path: Segment[] | undefined): boolean {
    const relevant = this.#metaAt(path, "relevant");
    return relevant !== undefined && relevant !== null && !truthy(relevant);
  }

  /** Whether the model refuses writes at `path`: `#read_only`, a schema `readOnly`, a derivation's target. */
  #refusesWrites(path: Segment[] | undefined): boolean {
    if (!path || hasWildcard(path)) return false;
    return truthy(this.#metaAt(path, "read_only")) || this.#model.schema.fragmentAt(path).readOnly === true ||
      targetHolding(this.#model.derivedTargets, path) !== undefined;
  }

  async #component(spec: ComponentSpec, scope: Scope): Promise<EvaluatedComponent> {
    const known = groupOf(spec.type);
    const group: ComponentGroup = known ?? BASIC_INPUT;
    const errors: string[] = [];
    const out = (known ? {} : cloneJson(spec)) as EvaluatedComponent;
    out.id = scope.idPrefix + spec.id;
    out.type = spec.type;
    const anchor: ComponentAnchors = { component: out, paths: [], expressions: [], element: scope.element };
    this.anchors.push(anchor);

    const expression = async (member: string, source: string): Promise<Json | undefined | typeof FAILED> => {
      try {
        const compiled = this.#model.compiler.compile(source);
        anchor.expressions.push(compiled);
        return await compiled.evaluate(this.#state.doc, {
          ...this.#model.bindings.base,
          parent: scope.elementValue,
        });
      } catch (err) {
        errors.push(`${member}: ${(err as Error).message}`);
        return FAILED;
      }
    };
    const display = async (member: string, value: Json | undefined): Promise<Json | undefined> => {
      if (typeof value !== "string" || !value.includes("$")) return value;
      const result = await expression(member, value);
      return result === FAILED ? undefined : result;
    };
    const addresses = new Map<string, Segment[] | undefined>();
    /** The concrete address a member holds (once per member: errors and anchors are recorded once). */
    const address: AddressOf = (member, value) => {
      if (addresses.has(member)) return addresses.get(member);
      let resolved: Segment[] | undefined;
      const parsed = value === undefined || value === null ? undefined : parsePath(value);
      if (parsed && !parsed.ok) errors.push(`${member}: ${parsed.message}`);
      else if (parsed) {
        resolved = resolveInScope(parsed.path, scope.element);
        anchor.paths.push(resolved);
      }
      addresses.set(member, resolved);
      return resolved;
    };
    /** A state member's own value; `undefined` means inherit. */
    const stateOf = async (member: string): Promise<boolean | undefined> => {
      const value = spec[member];
      if (typeof value === "boolean") return value;
      if (typeof value !== "string") return undefined;
      const result = await expression(member, value);
      return result === FAILED ? undefined : truthy(result);
    };

    const bind = address("bind", spec.bind);
    const visible = (await stateOf("visible")) ?? !this.#hiddenByMeta(bind);
    const readOnly = (await stateOf("readOnly")) ?? this.#refusesWrites(bind);
    const required = (await stateOf("required")) ?? truthy(this.#metaAt(bind, "required"));
    const enabled = (await stateOf("enabled")) ?? !readOnly;

    if (spec.label !== undefined && spec.label !== null) out.label = cloneJson(spec.label);
    if (bind) out.bind = formatPath(bind);
    out.visible = visible;

    const resolve = async (member: string): Promise<Json | undefined> => {
      switch (member) {
        case "value":
          if (group.kind === "effectStatus") return this.#effectStatus(spec, bind, address);
          return bind ? this.#valueAt(bind) : await display(member, spec.value);
        case "enabled":
          return enabled;
        case "readOnly":
          return readOnly;
        case "required":
          return required;
        case "text":
        case "delta":
        case "caption":
        case "trend":
          return await display(member, spec[member]);
        case "bindFrom":
        case "bindTo":
        case "dependsOn":
        case "errorPath": {
          const path = address(member, spec[member]);
          return path && formatPath(path);
        }
        case "valueFrom":
        case "valueTo": {
          const source = member === "valueFrom" ? "bindFrom" : "bindTo";
          const path = address(source, spec[source]);
          return path && this.#valueAt(path);
        }
        case "error": {
          const errorPath = address("errorPath", spec.errorPath);
          if (errorPath) return this.#valueAt(errorPath);
          const status = this.#effectStatus(spec, bind, address);
          return isObject(status) ? status.error : undefined;
        }
        case "src":
          return this.#imageSource(bind, spec.src);
        case "items":
          return await this.#items(spec.items, address, display);
        case "components":
          return group.kind === "sectionList"
            ? await this.#expandList(spec, bind, out.id, scope)
            : await this.components(spec.components, scope);
        default:
          if (member in UPLOAD_META) return spec[member] ?? this.#metaAt(bind, UPLOAD_META[member]);
          return cloneJson(spec[member]);
      }
    };
    const defaults = group.defaults?.(spec.type) ?? {};
    for (const member of group.members) {
      const value = await resolve(member);
      if (value !== undefined && value !== null) out[member] = value;
      else if (member in defaults) out[member] = defaults[member];
    }
    if (spec.className !== undefined && spec.className !== null) out.className = cloneJson(spec.className);
    if (errors.length) out.error = errors.join("; ");
    return out;
  }

  /** Rows `{label, bind, value, text, format, currency}` of a key-value list (bind wins over text). */
  async #items(
    items: Json | undefined,
    address: AddressOf,
    display: (member: string, value: Json | undefined) => Promise<Json | undefined>,
  ): Promise<Json[] | undefined> {
    if (!Array.isArray(items)) return undefined;
    const rows: Json[] = [];
    for (const [j, item] of items.entries()) {
      if (!isObject(item)) continue;
      const path = address(`items[${j}].bind`, item.bind);
      const row: Record<string, Json | undefined> = {
        label: item.label,
        bind: path && formatPath(path),
        value: path && this.#valueAt(path),
        text: path || item.bind ? undefined : await display(`items[${j}].text`, item.text),
        format: item.format,
        currency: item.currency,
      };
      rows.push(
        Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined && v !== null)) as Json,
      );
    }
    return rows;
  }

  /** A bound BlobRef becomes the model's blob path, a bound string is the source itself. */
  #imageSource(bind: Segment[] | undefined, src: Json | undefined): Json | undefined {
    const bound = bind && this.#valueAt(bind);
    if (isBlobRef(bound)) return `/models/${encodeURIComponent(this.#model.id)}/blobs/${bound.$blobId}`;
    return typeof bound === "string" ? bound : src;
  }

  /** The status document of the component's effect: at `bind`, else at the effect's `statusPath`. */
  #effectStatus(
    spec: ComponentSpec,
    bind: Segment[] | undefined,
    address: AddressOf,
  ): Json | undefined {
    if (bind) return this.#valueAt(bind);
    const effect = (this.#model.spec.effects ?? []).find((e) => e.id === spec.effectId);
    const statusPath = address("statusPath", effect?.statusPath as Json | undefined);
    return statusPath && this.#valueAt(statusPath);
  }

  /** One `sectionItem` per element of the bound array, holding the item view (or inline components). */
  async #expandList(
    spec: ComponentSpec,
    listPath: Segment[] | undefined,
    listId: string,
    scope: Scope,
  ): Promise<EvaluatedComponent[]> {
    const array = listPath && !hasWildcard(listPath) ? getAt(this.#state.doc, listPath) : undefined;
    if (!listPath || !Array.isArray(array)) return [];
    const template = typeof spec.itemView === "string" ? this.#views.get(spec.itemView) : undefined;
    const children = template ? template.components : spec.components;
    const items: EvaluatedComponent[] = [];
    for (const [index, elementValue] of array.entries()) {
      const element = [...listPath, index];
      const item: EvaluatedComponent = {
        id: `${listId}[${index}]`,
        type: "sectionItem",
        bind: formatPath(element),
        visible: !this.#hiddenByMeta(element),
      };
      for (const member of ["layout", "columns"] as const) {
        const value = template?.[member];
        if (value !== undefined && value !== null) item[member] = cloneJson(value);
      }
      this.anchors.push({ component: item, paths: [element], expressions: [], element: scope.element });
      item.components = await this.components(children, { idPrefix: `${item.id}.`, element, elementValue });
      items.push(item);
    }
    return items;
  }
}
