/**
 * The 26 record kinds of evaluated components (SPEC.md "Component types by
 * record group"): which types belong to a kind, which members its evaluated
 * form carries, and the defaults the spec states.
 *
 * Every kind carries `id`, `type`, `label`, `bind`, `visible`, `className` and,
 * after a failed expression, `error`. The member lists below are the group's
 * extra members of the spec's table, with three additions: the input-like kinds
 * (text area, choice, dependent selector, slider, date range, file upload) carry
 * the basic input members too; every kind that shows a bound value carries
 * `value`; a button carries `text` (its caption).
 *
 * @module
 */
import type { Json } from "../../json/value.ts";

/** One record kind. */
export interface ComponentGroup {
  /** Name of the record kind. */
  kind: string;
  /** Component `type`s of the kind. */
  types: readonly string[];
  /** Members carried beyond the common ones, in output order. */
  members: readonly string[];
  /** Defaults the spec states for absent members. */
  defaults?: (type: string) => Record<string, Json>;
}

/** Members of the basic input kind (`value` is the bound field's current value). */
const INPUT = [
  "value",
  "enabled",
  "readOnly",
  "required",
  "placeholder",
  "helperText",
  "tooltip",
  "format",
  "currency",
  "onChange",
] as const;

/** The basic input kind: also how an unknown `type` evaluates. */
export const BASIC_INPUT: ComponentGroup = {
  kind: "basicInput",
  types: [
    "textField",
    "numericField",
    "currencyField",
    "percentField",
    "passwordField",
    "emailField",
    "phoneNumberField",
    "checkboxField",
    "toggleField",
    "dateField",
    "dateTimeField",
    "timeField",
    "countrySelector",
  ],
  members: INPUT,
};

/** Every record kind, in the spec's table order. */
export const COMPONENT_GROUPS: readonly ComponentGroup[] = [
  BASIC_INPUT,
  {
    kind: "textArea",
    types: ["textAreaField", "richTextField"],
    members: [...INPUT, "rows", "toolbar"],
    defaults: () => ({ toolbar: "basic" }),
  },
  {
    kind: "choice",
    types: ["selectField", "radioField", "multiSelectField", "autocompleteField", "comboBox", "tagsField"],
    members: [
      ...INPUT,
      "options",
      "optionsExpr",
      "optionsUrl",
      "optionsPath",
      "allowCustom",
      "onOpen",
      "onClose",
    ],
    defaults: (type) => ({ allowCustom: type === "comboBox" || type === "tagsField" }),
  },
  {
    kind: "dependentSelector",
    types: ["countryRegionSelector"],
    members: [...INPUT, "options", "dependsOn"],
  },
  {
    kind: "slider",
    types: ["sliderField", "ratingField", "numericStepper"],
    members: [...INPUT, "min", "max", "step"],
    defaults: (type): Record<string, Json> => type === "ratingField" ? { min: 1, max: 5, step: 1 } : {},
  },
  {
    kind: "dateRange",
    types: ["dateRangeField"],
    members: [
      ...INPUT.filter((m) => m !== "value"),
      "bindFrom",
      "bindTo",
      "valueFrom",
      "valueTo",
      "fromLabel",
      "toLabel",
      "minDate",
      "maxDate",
    ],
    defaults: () => ({ fromLabel: "From", toLabel: "To" }),
  },
  {
    kind: "fileUpload",
    types: ["fileUploadField"],
    members: [
      ...INPUT,
      "accept",
      "multiple",
      "minFiles",
      "maxFiles",
      "minSize",
      "maxSize",
      "allowedMediaTypes",
    ],
  },
  { kind: "label", types: ["label"], members: ["value", "text", "format", "currency"] },
  {
    kind: "staticText",
    types: ["staticText"],
    members: ["value", "text", "format"],
    defaults: () => ({ format: "markdown" }),
  },
  { kind: "badge", types: ["badge", "alert", "callout"], members: ["value", "text", "variant"] },
  {
    kind: "separator",
    types: ["separatorLine", "spacer"],
    members: ["size"],
    defaults: (type): Record<string, Json> => type === "spacer" ? { size: 16 } : {},
  },
  { kind: "image", types: ["image"], members: ["src", "alt", "width", "height", "fit"] },
  { kind: "link", types: ["link"], members: ["value", "href", "text", "target", "icon"] },
  {
    kind: "progress",
    types: ["progressBar", "gauge"],
    members: ["value", "min", "max", "showValue", "format"],
    defaults: () => ({ format: "percent" }),
  },
  { kind: "table", types: ["dataTable"], members: ["value", "tableColumns", "pageSize"] },
  {
    kind: "chart",
    types: ["dataChart", "sparkline"],
    members: ["value", "chartType", "chartX", "chartSeries"],
  },
  {
    kind: "keyValue",
    types: ["keyValueList", "summaryList"],
    members: ["items", "columns"],
    defaults: () => ({ columns: 1 }),
  },
  {
    kind: "statTile",
    types: ["statTile", "metric"],
    members: ["value", "delta", "caption", "trend", "format", "currency", "variant", "icon", "tooltip"],
  },
  { kind: "jsonViewer", types: ["jsonViewer"], members: ["value", "collapsed", "maxDepth"] },
  {
    kind: "tracePanel",
    types: ["explainPanel", "auditTimeline"],
    members: ["limit", "showConstraints", "collapsed"],
  },
  {
    kind: "validationSummary",
    types: ["validationSummary"],
    members: ["pathPrefix", "variant", "maxItems", "emptyText"],
  },
  {
    kind: "effectStatus",
    types: ["effectStatus"],
    members: ["value", "effectId", "errorPath", "error", "showRetry", "retryLabel", "onRetry"],
  },
  {
    kind: "container",
    types: [
      "group",
      "fieldSet",
      "card",
      "toolbar",
      "buttonGroup",
      "tabs",
      "tabItem",
      "accordion",
      "collapsible",
      "sectionItem",
    ],
    members: ["layout", "columns", "legend", "collapsed", "components"],
  },
  {
    kind: "sectionList",
    types: ["sectionList"],
    members: [
      "canAdd",
      "canRemove",
      "addLabel",
      "removeLabel",
      "layout",
      "columns",
      "components",
      "onChange",
    ],
  },
  { kind: "button", types: ["button"], members: ["enabled", "text", "variant", "icon", "onClick"] },
  { kind: "menu", types: ["menu", "stepper", "breadcrumb"], members: ["orientation", "menuItems"] },
];

const BY_TYPE = new Map<string, ComponentGroup>(
  COMPONENT_GROUPS.flatMap((group) => group.types.map((type) => [type, group] as const)),
);

/** The record kind of a component type; `undefined` for an unknown type. */
export function groupOf(type: string): ComponentGroup | undefined {
  return BY_TYPE.get(type);
}

/** Members holding client-executed event handlers (passed through unevaluated). */
export const HANDLER_MEMBERS = ["onChange", "onClick", "onOpen", "onClose", "onRetry"] as const;

/** Display members: JSONata only when the string contains a `$`, else literal text. */
export const DISPLAY_MEMBERS = ["text", "value", "delta", "caption", "trend"] as const;

/** State members: a boolean, a JSONata string (always evaluated) or null (inherited from meta). */
export const STATE_MEMBERS = ["visible", "enabled", "readOnly", "required"] as const;

/** Members holding addresses, resolved against an enclosing section list element. */
export const PATH_MEMBERS = ["bind", "bindFrom", "bindTo", "dependsOn", "errorPath"] as const;
