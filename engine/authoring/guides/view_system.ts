/**
 * Guide `svc://guide/view-system`: view system orientation.
 *
 * @module
 */

/** The view system orientation, as markdown. */
export const VIEW_SYSTEM_GUIDE = `# The view system

A spec may carry a \`viewDefinition\`: a renderer-agnostic description of screens over the model. The
service evaluates it against the live state into an **EvaluatedView** (values filled in, expressions
resolved, visibility and read-only state decided), which any client can draw. Read it with
\`get_view {id, viewId?}\` (MCP) or \`GET /models/{id}/view[/{viewId}]\`.

## Definition

\`\`\`json
{
  "defaultView": "main",
  "views": [
    {
      "id": "main",
      "label": "Order",
      "layout": "vertical",
      "components": [
        { "id": "customer", "type": "textField", "label": "Customer", "bind": "$.customer" },
        { "id": "total", "type": "statTile", "label": "Total", "bind": "$.total", "format": "currency", "currency": "EUR" }
      ]
    }
  ]
}
\`\`\`

- \`renderer\` is reserved (\`builtin\`); \`defaultView\` names one of \`views\`.
- A view has an \`id\` (unique in the model), a \`label\` (the evaluated \`title\`), a \`layout\` (\`vertical\`
  default, \`horizontal\`, \`grid\` with \`columns\`, \`tabs\`, \`wizard\`), \`components\`, and optional
  \`onOpen\`/\`onClose\` handlers.
- Every component needs \`id\` and \`type\`; ids are unique within a view, nested components included.

Write-time checks (the spec is refused, 422): duplicate view or component ids, a missing \`id\` or \`type\`, a
\`defaultView\`, \`sectionList.itemView\`, handler \`navigate\` or menu \`targetView\` naming no view (or a section
list containing itself), a non-canonical address, a state member that is neither boolean, string nor null, a
handler that is not an object, a \`ratingField\` of more than 100 choices (\`max - min + 1\`).
Warnings (accepted): view JSONata that does not compile, an unknown layout, a section list without \`bind\`.

## Three kinds of member

| Kind | Members | Treatment |
|---|---|---|
| plain text | \`label\`, \`placeholder\`, \`helperText\`, \`tooltip\`, \`legend\`, \`alt\`, \`addLabel\`, \`removeLabel\`, \`fromLabel\`, \`toLabel\`, option and menu labels, column headers, key-value labels | copied verbatim, never evaluated |
| address | \`bind\`, \`bindFrom\`, \`bindTo\`, \`dependsOn\`, \`chartX\`, \`chartSeries[].field\`, \`tableColumns[].field\`, key-value item \`bind\` | canonical addresses (\`chartX\` and column fields name members of each row) |
| expression | \`visible\`, \`enabled\`, \`readOnly\`, \`required\`; display fields \`text\`, \`value\`, \`delta\`, \`caption\`, \`trend\` | JSONata against the merged document, \`$const\` bound |

**\`bind\` vs expressions.** \`bind\` ties a component to a field: its \`value\` is the field's current value,
inputs write back to it, and its metadata drives visibility and locking. Prefer \`bind\` for anything that
shows or edits one field. Use an expression for computed text that does not deserve a derived field.

**The \`$\` rule.** The display fields are evaluated only when the string contains a \`$\`; otherwise the
string is literal text. \`"text": "Total due"\` shows those words; \`"text": "total"\` shows the word *total*.
To show a value, bind it, or use any \`$\` function:

\`\`\`jsonata
'Due: ' & $formatNumber(total, '#,##0.00')
\`\`\`

For an expression with no function in it, reach the field through \`$$\` (the document):
\`"trend": "$$.remaining < 0 ? 'down' : 'up'"\`. State members (\`visible\`, ...) are always evaluated, \`$\` or
not. A failing expression marks its component with an \`error\` member (the message); the rest of the view
still evaluates.

## Meta inheritance

When \`visible\`, \`readOnly\` or \`required\` is absent or null, the component inherits from its bound field's
meta values (see \`metaDerivations\` in \`svc://guide/model-spec-format\`):

| Member | From | Default |
|---|---|---|
| \`visible\` | \`<bind>#relevant\`: false hides | true |
| \`readOnly\` | \`<bind>#read_only\` | false |
| \`required\` | \`<bind>#required\` | false |
| \`enabled\` | not the effective \`readOnly\` | true |

So one meta derivation (\`{"path": "$.vatId", "property": "relevant", "expr": "country = 'DE'"}\`) hides the
field in every view that binds it, and also shows in the effective schema. An explicit boolean or
expression on the component overrides the meta. Hiding is presentation only: the value is kept.

## Component groups

Each evaluated component carries \`id\`, \`type\`, \`label\`, \`bind\`, \`visible\` and the members of its group
(absent members are omitted). An unknown \`type\` is kept verbatim and evaluated as a basic input.

| Group | Types | Notable members |
|---|---|---|
| basic input | textField, numericField, currencyField, percentField, passwordField, emailField, phoneNumberField, checkboxField, toggleField, dateField, dateTimeField, timeField, countrySelector | value, enabled, readOnly, required, placeholder, helperText, tooltip, format, currency, onChange |
| text area | textAreaField, richTextField | rows, toolbar (\`basic\`, \`full\`, \`none\`); richTextField stores markdown |
| choice | selectField, radioField, multiSelectField, autocompleteField, comboBox, tagsField | options \`[{value, label}]\`, optionsExpr / optionsUrl / optionsPath (resolved by the client), allowCustom |
| dependent selector | countryRegionSelector | options, dependsOn |
| slider | sliderField, ratingField, numericStepper | min, max, step (rating defaults 1..5) |
| date range | dateRangeField | bindFrom, bindTo (they carry the values, as valueFrom/valueTo), fromLabel, toLabel |
| file upload | fileUploadField | accept, multiple, minFiles, maxFiles, minSize, maxSize, allowedMediaTypes; stores a BlobRef |
| label | label | text, format (\`currency\`, \`percent\`, \`number\`, \`integer\`), currency |
| static text | staticText | text, format (\`markdown\` default, \`text\`, \`html\`) |
| badge | badge, alert, callout | text, variant (\`primary\`, \`secondary\`, \`success\`, \`warning\`, \`danger\`) |
| separator | separatorLine, spacer | size (spacer default 16) |
| image | image | src, alt, width, height, fit; a bound BlobRef becomes the blob's URL |
| link | link | href, text, target, icon |
| progress | progressBar, gauge | value, min, max, showValue, format |
| table | dataTable | bind an array; tableColumns \`[{field, header, format, currency, width}]\`, pageSize |
| chart | dataChart, sparkline | bind an array; chartType (\`bar\`, \`line\`, \`area\`, \`pie\`), chartX, chartSeries \`[{field, label, color}]\` |
| key-value | keyValueList, summaryList | items \`[{label, bind, text, format, currency}]\` (bind wins over text), columns |
| stat tile | statTile, metric | value, delta, caption, trend, format, currency, variant, icon |
| json viewer | jsonViewer | collapsed, maxDepth; \`bind: "$"\` shows the whole document |
| trace panel | explainPanel, auditTimeline | limit, showConstraints, collapsed (the client fetches the data) |
| validation summary | validationSummary | pathPrefix, variant, maxItems, emptyText |
| effect status | effectStatus | effectId; value is the effect's status document \`{phase, key, at, error}\` |
| container | group, fieldSet, card, toolbar, buttonGroup, tabs, tabItem, accordion, collapsible, sectionItem | components, layout, columns, legend, collapsed |
| section list | sectionList | bind an array; components or itemView, canAdd, canRemove, addLabel, removeLabel |
| button | button | text, enabled, variant, icon, onClick |
| menu | menu, stepper, breadcrumb | orientation, menuItems \`[{label, targetView, icon}]\` |

Formats: \`percent\` appends a percent sign without rescaling (7.5 shows 7.5%); \`currency\` uses the ISO-4217
code in \`currency\`.

## Repeating sections

A \`sectionList\` repeats its components once per element of the bound array:

\`\`\`json
{
  "id": "lines", "type": "sectionList", "bind": "$.lines", "canAdd": true, "canRemove": true,
  "components": [
    { "id": "qty", "type": "numericField", "label": "Qty", "bind": "$.lines[*].qty" },
    { "id": "net", "type": "label", "text": "$string($parent.qty * $parent.price)" }
  ]
}
\`\`\`

- The evaluated list holds one \`sectionItem\` per element (\`id\` \`lines[0]\`, \`bind\` \`$.lines[0]\`), each
  with the components inside, their ids prefixed (\`lines[0].qty\`) so they stay unique.
- Inside an element, \`[*]\` in an address stands for that element: \`$.lines[*].qty\` binds \`$.lines[0].qty\`
  in the first item. In expressions \`$parent\` is the element.
- \`itemView\` reuses the components of another view as the item template instead of inline components.
- The element's \`#relevant\` meta hides its item. Adding and removing elements is the client's job
  (JSON Patch \`add\` with \`-\`, \`remove\`).

For read-only lists, a \`dataTable\` bound to the array is simpler.

## Events and navigation

\`onClick\`, \`onChange\`, \`onOpen\`, \`onClose\` and \`onRetry\` hold \`{mutations, navigate}\` and are passed
through unevaluated: the client evaluates \`mutations\` (JSONata yielding a map of address to value, such as
\`{'$.status': 'submitted'}\`), sends it as a mutation, then activates the view \`navigate\`, except for
\`onClose\`: the person is leaving already, so only its \`mutations\` run. Tab and wizard positions are local
UI state; to persist a step, use separate views and navigate between them.

## Evaluated form

\`\`\`json
{
  "modelId": "shop/cart", "viewId": "main", "title": "Order", "layout": "vertical",
  "components": [
    { "id": "total", "type": "statTile", "label": "Total", "bind": "$.total", "visible": true,
      "value": 11, "format": "currency", "currency": "EUR" }
  ]
}
\`\`\`

## viewDelta

A client showing a view can ask a mutation for just what changed: send the view id in the \`X-View\` header
of \`POST /models/{id}/mutations\` (or \`/mutations/patch\`). The result then carries \`viewDelta\`, a map of
evaluated component id to the re-evaluated component, holding every component whose addresses or
expression inputs overlap a path the mutation wrote, derived or changed the metadata of (a table bound to
\`$.items\` is included when \`$.items[0].qty\` changes). Replace those components by id; everything else is
unchanged. Without the header the member is omitted.

## Checklist

- Every component has a unique \`id\` and a \`type\`.
- Fields are shown with \`bind\`; display expressions contain a \`$\`.
- Visibility and locking come from meta derivations where the rule is about the data; component-level
  expressions where it is about presentation.
- Section list children bind with \`[*]\` under the list's path.
- Evaluate the default view (\`get_view\`) after \`dry_run\`-style test data: no component should carry \`error\`.
`;
