import assert from "node:assert/strict";
import { ServiceError } from "../errors.ts";
import type { Json, JsonObject } from "../json/value.ts";
import { type EvaluatedComponent, type EvaluatedView, evaluateView, viewStateOf } from "./evaluate.ts";
import { COMPONENT_GROUPS, groupOf } from "../model/view_definition/groups.ts";
import { modelOf, runtimeOf, specWithView } from "./test_support.ts";

const COMMON = ["id", "type", "label", "bind", "visible", "className", "error"];

/** Evaluates the default view of a spec holding `components` against a hand-made state. */
function evaluate(
  components: Json[],
  doc: Json = {},
  meta: Record<string, Json> = {},
  rest: { views?: JsonObject[]; spec?: JsonObject } = {},
): Promise<EvaluatedView> {
  return evaluateView(modelOf(specWithView(components, rest)), { doc, meta: new Map(Object.entries(meta)) });
}

async function one(component: JsonObject, doc: Json = {}, meta: Record<string, Json> = {}) {
  const view = await evaluate([component], doc, meta);
  return view.components[0];
}

Deno.test("view: EvaluatedView carries modelId, viewId, title, layout and the view's extras", async () => {
  const grid = { id: "grid", layout: "grid", columns: 3, onOpen: { navigate: "main" }, components: [] };
  const model = modelOf(specWithView([], { views: [grid] }));
  const state = { doc: {}, meta: new Map() };
  assert.deepEqual(await evaluateView(model, state), {
    modelId: "m",
    viewId: "main",
    title: "Main",
    layout: "vertical",
    components: [],
  });
  assert.deepEqual(await evaluateView(model, state, "grid"), {
    modelId: "m",
    viewId: "grid",
    title: "grid",
    layout: "grid",
    columns: 3,
    onOpen: { navigate: "main" },
    components: [],
  });
});

Deno.test("view: an unknown view and a model without views are not_found", async () => {
  const model = modelOf(specWithView([]));
  await assert.rejects(
    evaluateView(model, { doc: {}, meta: new Map() }, "nope"),
    (err: ServiceError) => err.kind === "not_found" && /View 'nope' not found in model 'm'/.test(err.message),
  );
  const bare = modelOf({ id: "bare", schema: { type: "object" } });
  await assert.rejects(
    evaluateView(bare, { doc: {}, meta: new Map() }),
    (err: ServiceError) => err.kind === "not_found" && /has no view definition/.test(err.message),
  );
});

Deno.test("view: every record kind carries only its members, whatever else the spec holds", async () => {
  const foreign: JsonObject = {
    rows: 3,
    chartType: "bar",
    pageSize: 5,
    orientation: "horizontal",
    legend: "L",
    size: 8,
    href: "https://example.org",
    menuItems: [],
    options: [],
    showRetry: true,
    maxDepth: 2,
    placeholder: "p",
    onClick: { navigate: "main" },
    minDate: "2024-01-01",
  };
  for (const group of COMPONENT_GROUPS) {
    for (const type of group.types) {
      const c = await one({ id: "c", type, label: "L", bind: "$.x", ...foreign }, { x: 1 });
      const allowed = new Set([...COMMON, ...group.members]);
      const extra = Object.keys(c).filter((k) => !allowed.has(k));
      assert.deepEqual(extra, [], `${type} (${group.kind}) carries ${extra.join(", ")}`);
      assert.equal(c.error, undefined, `${type}: ${c.error}`);
    }
  }
  assert.equal(COMPONENT_GROUPS.length, 26);
});

Deno.test("view: basic input carries value, state members, plain text and onChange; nulls are omitted", async () => {
  const c = await one({
    id: "name",
    type: "textField",
    label: "Name",
    bind: "$.name",
    placeholder: "e.g. Ada",
    helperText: "$ is not evaluated here",
    tooltip: null,
    format: null,
    onChange: { mutations: "{'$.touched': true}" },
  }, { name: "Ada" });
  assert.deepEqual(c, {
    id: "name",
    type: "textField",
    label: "Name",
    bind: "$.name",
    visible: true,
    value: "Ada",
    enabled: true,
    readOnly: false,
    required: false,
    placeholder: "e.g. Ada",
    helperText: "$ is not evaluated here",
    onChange: { mutations: "{'$.touched': true}" },
  });
  const absent = await one({ id: "n", type: "numericField", bind: "$.missing" });
  assert.equal("value" in absent, false);
});

Deno.test("view: state members are booleans, JSONata strings evaluated against the merged document", async () => {
  const doc = { age: 17, admin: false };
  const c = await one({
    id: "c",
    type: "textField",
    bind: "$.x",
    visible: "age >= 18",
    readOnly: true,
    required: "$.age < 18",
    enabled: "admin",
  }, doc);
  assert.equal(c.visible, false);
  assert.equal(c.readOnly, true);
  assert.equal(c.required, true);
  assert.equal(c.enabled, false);
  const literal = await one({ id: "c", type: "textField", visible: false, enabled: true, readOnly: false });
  assert.deepEqual([literal.visible, literal.enabled, literal.readOnly], [false, true, false]);
});

Deno.test("view: a field the model refuses writes to (schema readOnly, derived) is read-only", async () => {
  const view = await evaluate(
    [
      { id: "locked", type: "textField", bind: "$.locked" },
      { id: "total", type: "numericField", bind: "$.total" },
      { id: "inside", type: "numericField", bind: "$.summary.count" },
      { id: "row", type: "numericField", bind: "$.lines[0].amount" },
      { id: "qty", type: "numericField", bind: "$.qty" },
      { id: "unlocked", type: "numericField", bind: "$.total", readOnly: false },
    ],
    { qty: 2, total: 4, lines: [{ amount: 1 }] },
    {},
    {
      spec: {
        schema: {
          type: "object",
          properties: {
            qty: { type: "number" },
            locked: { type: "string", readOnly: true },
            lines: { type: "array", items: { type: "object", properties: { amount: { type: "number" } } } },
          },
        },
        derivations: [
          { path: "$.total", expr: "qty * 2" },
          { path: "$.summary", expr: "{'count': $count(lines)}" },
          { path: "$.lines[*].amount", expr: "1" },
        ],
      },
    },
  );
  const by = Object.fromEntries(view.components.map((c) => [c.id, [c.readOnly, c.enabled]]));
  assert.deepEqual(by, {
    locked: [true, false],
    total: [true, false],
    inside: [true, false],
    row: [true, false],
    qty: [false, true],
    unlocked: [false, true],
  });
});

Deno.test("view: meta inheritance follows #relevant, #read_only and #required of the bind", async () => {
  const meta = { "$.email#relevant": false, "$.total#read_only": true, "$.name#required": true };
  const view = await evaluate(
    [
      { id: "email", type: "emailField", bind: "$.email" },
      { id: "total", type: "numericField", bind: "$.total" },
      { id: "name", type: "textField", bind: "$.name" },
      { id: "free", type: "textField", bind: "$.free" },
      { id: "shown", type: "emailField", bind: "$.email", visible: true },
      { id: "writable", type: "numericField", bind: "$.total", readOnly: false },
      { id: "enabledAnyway", type: "numericField", bind: "$.total", enabled: true },
      { id: "optional", type: "textField", bind: "$.name", required: "false" },
      { id: "pressMe", type: "button", bind: "$.total" },
    ],
    {},
    meta,
  );
  const by = Object.fromEntries(view.components.map((c) => [c.id, c]));
  assert.equal(by.email.visible, false);
  assert.deepEqual([by.total.readOnly, by.total.enabled], [true, false]);
  assert.equal(by.name.required, true);
  assert.deepEqual([by.free.visible, by.free.readOnly, by.free.required, by.free.enabled], [
    true,
    false,
    false,
    true,
  ]);
  assert.equal(by.shown.visible, true, "an explicit visible wins over meta");
  assert.deepEqual([by.writable.readOnly, by.writable.enabled], [false, true]);
  assert.deepEqual([by.enabledAnyway.readOnly, by.enabledAnyway.enabled], [true, true]);
  assert.equal(by.optional.required, false);
  assert.equal(by.pressMe.enabled, false, "a button bound to a read-only field is disabled");
});

Deno.test("view: #relevant hides only when present and false; a null or truthy value shows", async () => {
  const view = await evaluate(
    [
      { id: "a", type: "textField", bind: "$.a" },
      { id: "b", type: "textField", bind: "$.b" },
      { id: "c", type: "textField", bind: "$.c" },
    ],
    {},
    { "$.a#relevant": null, "$.b#relevant": true, "$.c#relevant": 0 },
  );
  assert.deepEqual(view.components.map((c) => c.visible), [true, true, false]);
});

Deno.test("view: display fields are JSONata only when they contain a $", async () => {
  const doc = { flag: true, score: 7, name: "Ada" };
  const view = await evaluate([
    { id: "literal", type: "badge", text: "flag = true ? 'Yes' : 'No'", variant: "flag ? 'danger' : 'ok'" },
    { id: "expr", type: "label", text: "$.flag = true ? 'Yes' : 'No'" },
    { id: "fn", type: "staticText", text: "$string(score) & ' points'" },
    { id: "number", type: "label", text: 42 },
    {
      id: "tile",
      type: "statTile",
      value: "$.score * 2",
      delta: "+3",
      caption: "$uppercase(name)",
      trend: "$.score > 5 ? 'up' : 'down'",
    },
  ], doc);
  const by = Object.fromEntries(view.components.map((c) => [c.id, c]));
  assert.equal(by.literal.text, "flag = true ? 'Yes' : 'No'");
  assert.equal(by.literal.variant, "flag ? 'danger' : 'ok'", "variant is never evaluated");
  assert.equal(by.expr.text, "Yes");
  assert.equal(by.fn.text, "7 points");
  assert.equal(by.number.text, 42);
  assert.deepEqual(
    [by.tile.value, by.tile.delta, by.tile.caption, by.tile.trend],
    [14, "+3", "ADA", "up"],
  );
});

Deno.test("view: a bound value wins over a value member; $const is bound in view expressions", async () => {
  const model = modelOf(specWithView([
    { id: "tile", type: "metric", bind: "$.n", value: "$.n * 100" },
    { id: "rate", type: "label", text: "$string($const.rate)" },
  ], { spec: { constants: { rate: 0.25 } } }));
  const view = await evaluateView(model, { doc: { n: 2 }, meta: new Map() });
  assert.equal(view.components[0].value, 2);
  assert.equal(view.components[1].text, "0.25");
});

Deno.test("view: input-like kinds fill the defaults the spec states", async () => {
  const view = await evaluate([
    { id: "notes", type: "textAreaField", bind: "$.notes", rows: 4 },
    { id: "rich", type: "richTextField", bind: "$.rich", toolbar: "full" },
    { id: "select", type: "selectField", bind: "$.s", options: [{ value: "a", label: "A" }] },
    { id: "combo", type: "comboBox", bind: "$.s", optionsExpr: "choices", allowCustom: false },
    { id: "tags", type: "tagsField", bind: "$.t" },
    { id: "region", type: "countryRegionSelector", bind: "$.r", dependsOn: "$.country", options: [] },
    { id: "rating", type: "ratingField", bind: "$.stars" },
    { id: "slider", type: "sliderField", bind: "$.level", min: 0, max: 10, step: 2 },
  ], { notes: "n", stars: 4, level: 6 });
  const by = Object.fromEntries(view.components.map((c) => [c.id, c]));
  assert.deepEqual([by.notes.rows, by.notes.toolbar, by.notes.value], [4, "basic", "n"]);
  assert.equal(by.rich.toolbar, "full");
  assert.deepEqual([by.select.allowCustom, by.select.options], [false, [{ value: "a", label: "A" }]]);
  assert.deepEqual([by.combo.allowCustom, by.combo.optionsExpr], [false, "choices"]);
  assert.equal(by.tags.allowCustom, true);
  assert.deepEqual([by.region.dependsOn, by.region.options], ["$.country", []]);
  assert.deepEqual([by.rating.min, by.rating.max, by.rating.step, by.rating.value], [1, 5, 1, 4]);
  assert.deepEqual([by.slider.min, by.slider.max, by.slider.step, by.slider.enabled], [0, 10, 2, true]);
});

Deno.test("view: dateRange reads valueFrom/valueTo from bindFrom/bindTo; bind is only the meta anchor", async () => {
  const c = await one(
    {
      id: "stay",
      type: "dateRangeField",
      bind: "$.stay",
      bindFrom: "$.stay.from",
      bindTo: "$.stay.to",
      minDate: "2024-01-01",
    },
    { stay: { from: "2024-05-01", to: "2024-05-09" } },
    { "$.stay#read_only": true },
  );
  assert.deepEqual(c, {
    id: "stay",
    type: "dateRangeField",
    bind: "$.stay",
    visible: true,
    enabled: false,
    readOnly: true,
    required: false,
    bindFrom: "$.stay.from",
    bindTo: "$.stay.to",
    valueFrom: "2024-05-01",
    valueTo: "2024-05-09",
    fromLabel: "From",
    toLabel: "To",
    minDate: "2024-01-01",
  });
});

Deno.test("view: fileUpload bounds fall back to meta values of the bind", async () => {
  const c = await one(
    {
      id: "photos",
      type: "fileUploadField",
      bind: "$.photos",
      accept: "image/*",
      multiple: true,
      maxFiles: 3,
    },
    { photos: [] },
    { "$.photos#max_items": 9, "$.photos#min_items": 1, "$.photos#allowed_media_types": ["image/png"] },
  );
  assert.deepEqual(
    [c.accept, c.multiple, c.maxFiles, c.minFiles, c.allowedMediaTypes, c.value],
    ["image/*", true, 3, 1, ["image/png"], []],
  );
});

Deno.test("view: display kinds (label, staticText, badge, separator, link, progress) with defaults", async () => {
  const view = await evaluate([
    { id: "l", type: "label", bind: "$.total", format: "currency", currency: "EUR" },
    { id: "md", type: "staticText", text: "**hi**" },
    { id: "html", type: "staticText", text: "<b>hi</b>", format: "html" },
    { id: "warn", type: "alert", text: "Careful", variant: "warning" },
    { id: "line", type: "separatorLine" },
    { id: "gap", type: "spacer" },
    { id: "docs", type: "link", href: "https://example.org", text: "Docs", target: "_blank", icon: "book" },
    { id: "p", type: "progressBar", bind: "$.pct", min: 0, max: 100, showValue: true },
    { id: "g", type: "gauge", bind: "$.pct", format: "value" },
  ], { total: 12.5, pct: 40 });
  const by = Object.fromEntries(view.components.map((c) => [c.id, c]));
  assert.deepEqual(by.l, {
    id: "l",
    type: "label",
    bind: "$.total",
    visible: true,
    value: 12.5,
    format: "currency",
    currency: "EUR",
  });
  assert.equal(by.md.format, "markdown");
  assert.equal(by.html.format, "html");
  assert.deepEqual([by.warn.text, by.warn.variant], ["Careful", "warning"]);
  assert.deepEqual(by.line, { id: "line", type: "separatorLine", visible: true });
  assert.equal(by.gap.size, 16);
  assert.deepEqual([by.docs.href, by.docs.text, by.docs.target, by.docs.icon], [
    "https://example.org",
    "Docs",
    "_blank",
    "book",
  ]);
  assert.deepEqual([by.p.value, by.p.format, by.p.showValue], [40, "percent", true]);
  assert.equal(by.g.format, "value");
});

Deno.test("view: image resolves a bound BlobRef to the model's blob path", async () => {
  const blob = { $blobId: "ab12", $mediaType: "image/png", $bytes: 3 };
  const view = await evaluate([
    { id: "photo", type: "image", bind: "$.photo", alt: "A photo", fit: "cover", width: 100 },
    { id: "url", type: "image", bind: "$.url" },
    { id: "fixed", type: "image", src: "/static/logo.png" },
  ], { photo: blob, url: "https://example.org/x.png" });
  const [photo, url, fixed] = view.components;
  assert.deepEqual(photo, {
    id: "photo",
    type: "image",
    bind: "$.photo",
    visible: true,
    src: "/models/m/blobs/ab12",
    alt: "A photo",
    width: 100,
    fit: "cover",
  });
  assert.equal(url.src, "https://example.org/x.png");
  assert.equal(fixed.src, "/static/logo.png");
});

Deno.test("view: table, chart and jsonViewer carry the bound data; bind $ is the whole document", async () => {
  const doc = { rows: [{ a: 1 }, { a: 2 }], title: "T" };
  const view = await evaluate([
    { id: "t", type: "dataTable", bind: "$.rows", tableColumns: [{ field: "a", header: "A" }], pageSize: 10 },
    {
      id: "c",
      type: "sparkline",
      bind: "$.rows",
      chartType: "line",
      chartX: "a",
      chartSeries: [{ field: "a" }],
    },
    { id: "j", type: "jsonViewer", bind: "$", collapsed: true, maxDepth: 3 },
  ], doc);
  const [t, c, j] = view.components;
  assert.deepEqual([t.value, t.tableColumns, t.pageSize], [doc.rows, [{ field: "a", header: "A" }], 10]);
  assert.deepEqual([c.value, c.chartType, c.chartX, c.chartSeries], [doc.rows, "line", "a", [{
    field: "a",
  }]]);
  assert.deepEqual([j.bind, j.value, j.collapsed, j.maxDepth], ["$", doc, true, 3]);
});

Deno.test("view: key-value items resolve to rows; bind wins over text", async () => {
  const c = await one({
    id: "kv",
    type: "summaryList",
    items: [
      { label: "Total", bind: "$.total", format: "currency", currency: "USD" },
      { label: "Both", bind: "$.name", text: "ignored" },
      { label: "Literal", text: "plain" },
      { label: "Computed", text: "$string($.total * 2)" },
    ],
  }, { total: 5, name: "Ada" });
  assert.deepEqual(c.items, [
    { label: "Total", bind: "$.total", value: 5, format: "currency", currency: "USD" },
    { label: "Both", bind: "$.name", value: "Ada" },
    { label: "Literal", text: "plain" },
    { label: "Computed", text: "10" },
  ]);
  assert.equal(c.columns, 1);
});

Deno.test("view: declarations (trace panel, validation summary) and menus pass through", async () => {
  const view = await evaluate([
    { id: "why", type: "explainPanel", bind: "$.total", limit: 5, showConstraints: true, collapsed: false },
    { id: "log", type: "auditTimeline", limit: 20 },
    {
      id: "problems",
      type: "validationSummary",
      pathPrefix: "$.order",
      variant: "danger",
      maxItems: 3,
      emptyText: "OK",
    },
    {
      id: "nav",
      type: "stepper",
      orientation: "horizontal",
      menuItems: [{ label: "Next", targetView: "main" }],
    },
  ]);
  const [why, log, problems, nav] = view.components;
  assert.deepEqual([why.bind, why.limit, why.showConstraints, why.collapsed], ["$.total", 5, true, false]);
  assert.equal(log.limit, 20);
  assert.deepEqual([problems.pathPrefix, problems.variant, problems.maxItems, problems.emptyText], [
    "$.order",
    "danger",
    3,
    "OK",
  ]);
  assert.deepEqual([nav.orientation, nav.menuItems], ["horizontal", [{ label: "Next", targetView: "main" }]]);
});

Deno.test("view: effectStatus resolves the effect's status document and its error", async () => {
  const spec = specWithView([
    {
      id: "s",
      type: "effectStatus",
      effectId: "fetch",
      showRetry: true,
      retryLabel: "Again",
      onRetry: { navigate: "main" },
    },
    { id: "e", type: "effectStatus", effectId: "fetch", errorPath: "$.lastError" },
  ], {
    spec: { effects: [{ id: "fetch", trigger: "go", executor: "caller", statusPath: "$.io.fetch" }] },
  });
  const status = { phase: "failed", key: "k", at: "2024-01-01T00:00:00Z", error: "timeout" };
  const view = await evaluateView(modelOf(spec), {
    doc: { io: { fetch: status }, lastError: "boom" },
    meta: new Map(),
  });
  const [s, e] = view.components;
  assert.deepEqual(s, {
    id: "s",
    type: "effectStatus",
    visible: true,
    value: status,
    effectId: "fetch",
    error: "timeout",
    showRetry: true,
    retryLabel: "Again",
    onRetry: { navigate: "main" },
  });
  assert.deepEqual([e.errorPath, e.error], ["$.lastError", "boom"]);
});

Deno.test("view: containers evaluate nested components; buttons carry text, enabled and onClick", async () => {
  const c = await one({
    id: "card",
    type: "card",
    label: "Totals",
    layout: "grid",
    columns: 2,
    legend: "L",
    collapsed: true,
    components: [
      { id: "inner", type: "label", bind: "$.n" },
      {
        id: "go",
        type: "button",
        text: "$.n > 1 ? 'Many' : 'One'",
        enabled: "$.n < 5",
        variant: "primary",
        icon: "play",
        onClick: { mutations: "{'$.n': n + 1}", navigate: "main" },
      },
    ],
  }, { n: 2 });
  assert.deepEqual(c, {
    id: "card",
    type: "card",
    label: "Totals",
    visible: true,
    layout: "grid",
    columns: 2,
    legend: "L",
    collapsed: true,
    components: [
      { id: "inner", type: "label", bind: "$.n", visible: true, value: 2 },
      {
        id: "go",
        type: "button",
        visible: true,
        enabled: true,
        text: "Many",
        variant: "primary",
        icon: "play",
        onClick: { mutations: "{'$.n': n + 1}", navigate: "main" },
      },
    ],
  });
});

Deno.test("view: an unknown type keeps its raw JSON and evaluates as a basic input; className is served", async () => {
  const c = await one(
    { id: "x", type: "signaturePad", bind: "$.sig", penColor: "blue", visible: "$.show", className: "wide" },
    { sig: "abc", show: true },
    { "$.sig#read_only": true },
  );
  assert.deepEqual(c, {
    id: "x",
    type: "signaturePad",
    bind: "$.sig",
    penColor: "blue",
    visible: true,
    className: "wide",
    value: "abc",
    enabled: false,
    readOnly: true,
    required: false,
  });
  assert.equal(groupOf("signaturePad"), undefined);
  const known = await one({ id: "k", type: "textField", className: "wide" });
  assert.equal(known.className, "wide");
});

Deno.test("view: sectionList expands inline components per element, [*] resolved to the element", async () => {
  const doc = { items: [{ name: "Apple", qty: 2 }, { name: "Bread", qty: 1 }] };
  const meta = { "$.items[1].qty#read_only": true, "$.items[0]#relevant": false };
  const list = await one(
    {
      id: "list",
      type: "sectionList",
      label: "Items",
      bind: "$.items",
      canAdd: true,
      canRemove: false,
      addLabel: "Add",
      onChange: { navigate: "main" },
      components: [
        { id: "name", type: "textField", bind: "$.items[*].name" },
        { id: "qty", type: "numericField", bind: "$.items[*].qty", visible: "$parent.qty > 1" },
      ],
    },
    doc,
    meta,
  );
  assert.deepEqual(list, {
    id: "list",
    type: "sectionList",
    label: "Items",
    bind: "$.items",
    visible: true,
    canAdd: true,
    canRemove: false,
    addLabel: "Add",
    components: [0, 1].map((i) => ({
      id: `list[${i}]`,
      type: "sectionItem",
      bind: `$.items[${i}]`,
      visible: i !== 0,
      components: [
        {
          id: `list[${i}].name`,
          type: "textField",
          bind: `$.items[${i}].name`,
          visible: true,
          value: doc.items[i].name,
          enabled: true,
          readOnly: false,
          required: false,
        },
        {
          id: `list[${i}].qty`,
          type: "numericField",
          bind: `$.items[${i}].qty`,
          visible: i === 0,
          value: doc.items[i].qty,
          enabled: i === 0,
          readOnly: i !== 0,
          required: false,
        },
      ],
    })),
    onChange: { navigate: "main" },
  });
});

Deno.test("view: sectionList expands its itemView; nested lists resolve every [*] level", async () => {
  const doc = { orders: [{ lines: [{ sku: "a" }, { sku: "b" }] }, { lines: [] }] };
  const view = await evaluate(
    [
      { id: "orders", type: "sectionList", bind: "$.orders", itemView: "order" },
    ],
    doc,
    {},
    {
      views: [
        {
          id: "order",
          layout: "horizontal",
          components: [{ id: "lines", type: "sectionList", bind: "$.orders[*].lines", itemView: "line" }],
        },
        { id: "line", components: [{ id: "sku", type: "label", bind: "$.orders[*].lines[*].sku" }] },
      ],
    },
  );
  const orders = view.components[0];
  const [first, second] = orders.components as EvaluatedComponent[];
  assert.equal(first.layout, "horizontal");
  const lines = (first.components as EvaluatedComponent[])[0];
  assert.equal(lines.id, "orders[0].lines");
  assert.equal(lines.bind, "$.orders[0].lines");
  const skus = (lines.components as EvaluatedComponent[]).map((item) =>
    (item.components as EvaluatedComponent[])[0]
  );
  assert.deepEqual(skus.map((s) => [s.id, s.bind, s.value]), [
    ["orders[0].lines[0].sku", "$.orders[0].lines[0].sku", "a"],
    ["orders[0].lines[1].sku", "$.orders[0].lines[1].sku", "b"],
  ]);
  assert.deepEqual((second.components as EvaluatedComponent[])[0].components, []);
});

Deno.test("view: a sectionList over a missing array has no items; a wildcard bind outside a list lists values", async () => {
  const view = await evaluate([
    { id: "list", type: "sectionList", bind: "$.none", components: [{ id: "x", type: "label" }] },
    { id: "all", type: "label", bind: "$.items[*].name" },
  ], { items: [{ name: "a" }, { name: "b" }] });
  assert.deepEqual(view.components[0].components, []);
  assert.deepEqual(view.components[1].value, ["a", "b"]);
});

Deno.test("view: an expression error marks its component with error; the rest of the view evaluates", async () => {
  const view = await evaluate(
    [
      { id: "bad", type: "textField", bind: "$.a", visible: "$number('abc')", placeholder: "kept" },
      { id: "badText", type: "label", text: "$string(", readOnly: "$.x" },
      { id: "good", type: "label", bind: "$.a" },
    ],
    { a: 1 },
    { "$.a#relevant": false },
  );
  const [bad, badText, good] = view.components;
  assert.match(bad.error as string, /^visible: .*D3030/);
  assert.equal(bad.visible, false, "a failed visible falls back to meta inheritance");
  assert.equal(bad.placeholder, "kept");
  assert.equal(bad.value, 1);
  assert.match(badText.error as string, /^text: /);
  assert.equal("text" in badText, false);
  assert.deepEqual(good, { id: "good", type: "label", bind: "$.a", visible: false, value: 1 });
});

Deno.test("view: evaluated against a runtime's merged state: derived and lazy values, meta cache", async () => {
  const runtime = await runtimeOf(specWithView([
    { id: "total", type: "statTile", bind: "$.total" },
    { id: "lazy", type: "label", bind: "$.report" },
    { id: "email", type: "emailField", bind: "$.email" },
  ], {
    spec: {
      schema: {
        type: "object",
        properties: { qty: { type: "number", default: 2 }, wants: { type: "boolean" } },
      },
      derivations: [
        { path: "$.total", expr: "qty * 10" },
        { path: "$.report", expr: "'total ' & $string(total)", evaluation: "lazy" },
      ],
      metaDerivations: [{ path: "$.email", property: "relevant", expr: "wants = true" }],
    },
  }));
  const view = await evaluateView(runtime.model, await viewStateOf(runtime));
  const [total, lazy, email] = view.components;
  assert.equal(total.value, 20);
  assert.equal(lazy.value, "total 20");
  assert.equal(email.visible, false);
});
