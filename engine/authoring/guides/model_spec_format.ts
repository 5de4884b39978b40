/**
 * Guide `svc://guide/model-spec-format`: spec authoring guide.
 *
 * @module
 */

/** The spec authoring guide, as markdown. */
export const MODEL_SPEC_FORMAT_GUIDE = `# Authoring a ModelSpec

A ModelSpec is one JSON document that declares a reactive model: the shape of the data a caller may write
(the base document), what is computed from it, live metadata about its fields, the invariants it must keep,
the effects it asks for, default values, embedded tests and an optional user interface. The service checks
the whole spec at once and answers with every finding (\`{location, message}\`), so fix the list and resubmit.

The JSON Schema of the format is \`svc://schema/model-spec\`; worked examples are under \`svc://examples/\`.
Validate with \`validate_spec\`, run the embedded tests with \`test_spec\`, and try mutations with \`dry_run\`
before \`create_model\`.

## A minimal spec

\`\`\`json
{
  "id": "shop/cart",
  "schema": {
    "type": "object",
    "properties": {
      "items": {
        "type": "array",
        "items": {
          "type": "object",
          "properties": {
            "price": { "type": "number", "minimum": 0 },
            "qty": { "type": "integer", "minimum": 1 },
            "lineTotal": { "type": "number", "readOnly": true }
          }
        }
      },
      "total": { "type": "number", "readOnly": true }
    }
  },
  "derivations": [
    { "path": "$.items[*].lineTotal", "expr": "$parent.price * $parent.qty" },
    { "path": "$.total", "expr": "$sum([items.lineTotal])" }
  ],
  "constraints": [
    { "id": "cap", "expr": "total <= 10000", "message": "Orders are capped at 10000", "policy": "rollback" }
  ],
  "tests": [
    {
      "description": "two lines",
      "given": { "$.items[0]": { "price": 2.5, "qty": 4 }, "$.items[1]": { "price": 1, "qty": 1 } },
      "expect": { "$.items[0].lineTotal": 10, "$.total": 11 }
    }
  ]
}
\`\`\`

## Top-level members

| Member | Rule |
|---|---|
| \`id\` | required; \`[namespace/]name\`, each segment a letter then letters, digits, \`-\`, \`_\` |
| \`version\` | semver \`MAJOR.MINOR.PATCH\`, optionally with a pre-release and build (\`2.0.0-rc.1\`, \`1.0.0+build.5\`); absent or blank means \`1.0.0\` |
| \`schema\` | required; JSON Schema 2020-12 of the base document |
| \`constants\` | map of name to any JSON value, read as \`$const.<name>\` |
| \`library\` | JSONata functions and values shared by every expression (described below) |
| \`defaultValues\`, \`derivations\`, \`metaDerivations\`, \`constraints\`, \`effects\`, \`tests\` | arrays, described below |
| \`viewDefinition\` | optional UI definition (see \`svc://guide/view-system\`) |
| \`template\`, \`lineage\` | branching; this service does not branch yet and rejects a non-null \`template\` |
| \`_anything\` | members starting with \`_\` (\`_name\`, \`_description\`) are notes and are ignored |

Any other top-level member is an error, and so is a non-empty \`actions\` array (the section was removed:
declare \`effects\`).

## Addresses and expressions: two different notations

**Addresses** say *where*: derivation and meta \`path\`, constraint \`path\`, default rule \`path\`, test and
mutation keys, view \`bind\`. They are canonical JSON Path: rooted at \`$\`, member names after dots, indices
in brackets, \`[*]\` for every element, quoted brackets for odd names.

\`\`\`
$.total    $.items[0].qty    $.items[*].lineTotal    $['unit price']    $
\`\`\`

The legacy dot-index form \`$.items.0.qty\` and unrooted forms (\`items[0].qty\`) are rejected; the message
carries the canonical rewrite. JSON Patch operations use JSON Pointers instead (\`/items/0/qty\`, \`-\` to
append).

**Expressions** say *what*: \`expr\`, \`trigger\`, \`payload\`, \`dedupeKey\`, view state and display fields. They
are JSONata, evaluated against the merged document (base fields with derived values spliced in), and
navigate without the \`$.\` prefix:

\`\`\`jsonata
$sum(items[qty > 0].(price * qty))
\`\`\`

Inside every expression \`$const\` holds the constants, \`$$\` is the whole document, and in per-element
nodes \`$parent\` is the current element. See \`svc://guide/jsonata-gotchas\` before writing many of them.

## schema: the base document

The schema validates every write before anything is applied. Only local references \`#/$defs/<Name>\` are
resolved (recursive types work); \`#/definitions/...\`, external URIs and dangling references are errors, and
an unused definition is a warning.

- Writes are checked leaf by leaf against the fragment at their address: type, \`minimum\`, \`pattern\`,
  \`enum\`, \`additionalProperties: false\` (an unknown member is refused), and so on. A whole object written
  at once must satisfy its fragment, \`required\` included.
- The document itself is never forced to be complete: a model starts empty (plus defaults) and fills up.
  A statically \`required\` member cannot be removed once present. Use constraints or a \`required\` meta
  derivation to demand presence.
- Declare derived fields too, with \`"readOnly": true\`: it documents their type, and the effective schema
  of the field reports it. Writes to a derived path are refused whatever the schema says.
- \`readOnly: true\` on a base field refuses writes from callers (effect fold-backs may still write it).
- \`default\` on a property is filled into a container when a write creates it (and into the root when the
  model is created).

## derivations: computed fields

\`\`\`json
{ "path": "$.items[*].lineTotal", "expr": "$round($parent.price * $parent.qty, 2)", "evaluation": "eager" }
\`\`\`

- \`path\` is the target. It cannot be \`$\`, two targets cannot overlap (\`$.a\` and \`$.a.b\`), and a \`[*]\` must
  be followed by a member name (\`$.items[*].x\`, not \`$.items[*]\`).
- \`[*]\` evaluates the expression once per element, with \`$parent\` bound to that element. The context is
  still the whole document: a bare \`price\` means the root's \`price\`, not the element's.
- The value replaces whatever is at the target; an expression that yields nothing removes the field.
- Dependencies are found automatically from the names the expression uses. A derivation may read other
  derived fields; cycles are rejected. Derivations run in levels: each sees the results of lower levels.
- \`eager\` (default) runs inside every mutation that touches its inputs. \`lazy\` is marked stale instead and
  evaluated when the state or that field is read, or when an eager node needs it.
- An evaluation error (for example \`$toMillis\` of a malformed date, or arithmetic on an explicit null)
  rejects the whole mutation with 422 and names the derivation. Derivations also run when the model is
  created, on the empty document: guard expressions that cannot handle missing input
  (\`startDate ? ... : ...\`), or creation fails.
- After a spec evolution every eager derivation is recomputed.

## constants

Immutable values bound as \`$const.<name>\`: rates, thresholds, lookup tables. A table held as an array of
objects is filtered by key: \`$const.rates[code = $parent.currency].rate\`. Constants change only through a
spec evolution.

## library: computation shared by every expression

When several expressions need the same computation (a loan payment, a tax band, rounding to cents), define
it once in \`library\` and call it from derivations, meta derivations, constraints, effects (\`response.set\`
included), default rules, tests and views alike:

\`\`\`json
{
  "id": "loan/quote",
  "schema": {
    "type": "object",
    "properties": {
      "principal": { "type": "number", "minimum": 0 },
      "years": { "type": "integer", "minimum": 1 },
      "payment": { "type": "number", "readOnly": true }
    }
  },
  "constants": { "annualRate": 0.06 },
  "library": {
    "description": "loan arithmetic",
    "define": "( $monthlyRate := $const.annualRate / 12; $payment := function($p, $months) { $monthlyRate = 0 ? $p / $months : $round($p * $monthlyRate / (1 - $power(1 + $monthlyRate, -$months)), 2) }; [\\"payment\\", \\"monthlyRate\\"] )",
    "signatures": { "payment": "<nn:n>" }
  },
  "derivations": [
    { "path": "$.payment", "expr": "$exists(principal) and $exists(years) ? $payment(principal, years * 12)" }
  ],
  "tests": [
    { "given": { "$.principal": 200000, "$.years": 30 }, "expect": { "$.payment": 1199.1 } }
  ]
}
\`\`\`

- \`define\` is plain JSONata ending with the array of the names it exports (strings). A function export is
  called \`$payment(...)\`; any other export (\`$monthlyRate\`) is a value computed once, when the model is
  created or evolved.
- A library function reads only its arguments and \`$const\` (the calling model's constants). Reading the
  document (a field name, \`$\`, \`$$\`, \`*\`, \`**\`) is refused outside predicates, sort terms and index
  filters (\`$items[price > 10]\` is fine): pass what it needs as arguments. So a library call adds no
  dependency of its own; the dependencies are those of the arguments.
- \`$now()\`, \`$millis()\` and \`$random()\` are refused in a library: pass the time in as an argument.
  \`$eval\` is refused in every expression of a spec.
- Export names are identifiers that shadow no built-in (\`sum\`) and are none of \`const\`, \`parent\`,
  \`self\`, \`response\`, \`now\`, \`status\`.
- A bare string is the \`define\`. The object form adds \`description\`, \`signatures\` (JSONata signatures
  by export, checked at every call), \`requiresConstants\` (constants the layer reads; each must exist),
  \`extends\` (a model whose library to extend: resolved when the model is created into pinned layers
  under this one's) and \`layers\`: layers
  inherited from a template, evaluated before \`define\`. A layer pinned by \`ref\` must be one the model it
  names passes on at that \`digest\` (as read back from a branch); otherwise leave the pin out. Each layer sees the exports of the layers before
  it and a later layer wins a name clash (a warning). An inherited layer must list in
  \`requiresConstants\` every constant it reads. At most 8 layers and 20000 characters per \`define\`;
  more than 64 exports is a warning.
- A call of a function nothing defines (\`$paymnt(...)\`) is an error anywhere in the spec, with the nearest
  name; a bare unknown variable (\`$rat\`) is a warning. Variables an expression binds itself (\`:=\`,
  function parameters) are known, as are the built-ins, \`$const\`, \`$parent\` and, in \`response.set\`,
  \`$response\` and \`$status\`.
- \`get_library\` (REST \`GET /models/{id}/library\`, console \`get-library\`) lists the layers and the
  exports; \`newLibrary\` in a SpecEvolution replaces the local layer.

## metaDerivations: live field metadata

\`\`\`json
{ "path": "$.company.vatId", "property": "required", "expr": "customerType = 'business'" }
\`\`\`

\`property\` is one of \`required\`, \`minimum\`, \`maximum\`, \`multipleOf\`, \`minLength\`, \`maxLength\`, \`pattern\`,
\`enum\`, \`readOnly\`, \`relevant\`. Values are kept in a meta cache under \`<path>#<snake_case property>\`:
\`$.company.vatId#required\`, \`$.seats#maximum\`, \`$.notes#read_only\`, \`$.limit#multiple_of\`. A \`[*]\` path gives
one key per element (\`$.items[0].qty#maximum\`). The effective schema of a field (\`get_effective_schema\`)
is its static fragment with these values overlaid under their camelCase names.

- Limits (\`minimum\`, \`maximum\`, \`multipleOf\`, \`minLength\`, \`maxLength\`, \`pattern\`, \`enum\`) are enforced on
  later writes, as schema violations (422).
- \`readOnly: true\` refuses caller writes to the field; \`required: true\` refuses writing null to it or
  removing it.
- \`relevant: false\` hides the bound view component. It is presentation only: the value stays and still
  feeds derivations and constraints.
- Metas are computed after the derivations of a mutation, and a write is checked against the metas as
  they were *before* the mutation. Writing \`plan\` and \`seats\` together checks \`seats\` against the old
  plan's maximum. When both change together, express the rule as a constraint.
- An expression that yields nothing or null removes the meta value (no limit). Otherwise the value must
  suit the property: true or false for \`required\`, \`readOnly\` and \`relevant\`; a number for \`minimum\` and
  \`maximum\`; a number above 0 for \`multipleOf\`; an integer of at least 0 for \`minLength\` and
  \`maxLength\`; an RE2 pattern; an array for \`enum\`. Any other value (\`"5"\`, \`"yes"\`, \`"("\`) fails like
  an expression that fails: the write that computes it is refused (422 naming the meta key), and so is
  creation when the empty document computes it.

## constraints: invariants

\`\`\`json
{ "id": "end-after-start", "expr": "$not(start and end) or end >= start",
  "message": "The end cannot precede the start", "policy": "rollback" }
\`\`\`

- \`policy: "rollback"\` reverts the whole mutation: HTTP 409 with
  \`{"error": "Constraint violation", "violations": [{"constraintId", "message", "policy"}]}\` (MCP: a result
  with \`isError: true\` and that body). \`policy: "flag"\` commits and lists the violation in
  \`flaggedConstraints\`.
- The expression sees the mutation's result, derived values included. \`false\`, \`0\`, \`""\`, an empty list
  or an evaluation error fail it; \`true\` passes, and so do null and *no value*. A comparison with a
  missing field yields no value, so \`qty > 0\` passes while \`qty\` is absent: use \`$exists(qty) and qty > 0\`
  when presence matters.
- \`path\` absent or null: evaluated once. \`"$.items[*]"\`: evaluated once per element with \`$parent\`
  bound, and reported once if any element fails. Other string or list paths name the guarded fields.
- A constraint is evaluated only in mutations that touch what it reads or its \`path\` (a write of
  \`$.submission\` checks \`{"path": "$.submission", "expr": "$millis() < $const.deadline"}\`; a write of
  \`$.items[2]\` checks element 2 of a \`$.items[*]\` one). A global one (no \`path\`) that reads no field, or
  calls \`$now\`, \`$millis\`, \`$random\` or \`$shuffle\`, can change without a write, so every mutation
  checks it. Constraints are not evaluated when the model is created or evolved.

Choose the mechanism by what should happen: schema keywords refuse a bad value before anything is applied
(422); meta limits do the same with limits that depend on other fields (from the next mutation on);
constraints judge the settled result and either revert (409) or report.

## effects: requests as data

The model never performs I/O. An effect whose trigger holds after a mutation is emitted as data.

\`\`\`json
{
  "id": "notify-approved",
  "executor": "caller",
  "trigger": "status = 'approved'",
  "emit": "order.approved",
  "payload": { "orderId": "orderId", "total": "total" }
}
\`\`\`

- \`id\` and \`trigger\` are required; \`executor\` defaults to \`server\`. \`caller\` effects are pure: each one
  that fires appears in the mutation result's \`dispatchedEffects\` as \`{effectId, emit, payload}\`, and the
  caller acts on it. \`server\` (outbound HTTP), \`llm\` and \`timer\` effects are requests for the service's
  executors, whose results come back as logged \`foldback\` mutations (\`response.set\` maps target
  addresses to JSONata over \`$response\` and \`$status\`; \`statusPath\` holds \`{phase, key, at, error}\`).
- A \`statusPath\` is the effect's own field: the schema there must accept that object (leave it undeclared, or
  declare an object), and it may not be a derivation target, hold one, or overlap another effect's status.
  A \`dedupeKey\` must not call \`$now\`, \`$millis\`, \`$random\` or \`$shuffle\`, nor read its own status.
- The trigger is evaluated only when a mutation touches what it (or \`dedupeKey\`, \`requests\`, \`prompt\`,
  \`at\`, \`afterMs\`) reads, and the effect fires when it is truthy. A caller effect fires again on every
  such mutation while the trigger holds, so trigger on the state you mean (\`status = 'approved'\` changes
  only when \`status\` is written).
- \`emit\` is passed through as written. \`payload\` is one JSONata expression, or an object whose members are
  JSONata expressions evaluated separately; a member that yields nothing is left out, a member that fails
  becomes \`{"error": message}\`.
- Unknown members (such as \`description\`) are ignored. Effects do not fire when the mutation rolls back.

## defaultValues: seeding new containers

\`\`\`json
[
  { "path": "$", "expr": "{'status': 'draft', 'currency': 'EUR'}" },
  { "path": "$.items[*]", "expr": "{'qty': 1}" }
]
\`\`\`

A rule applies when a write creates a container whose address matches its \`path\`: \`$\` when the model is
created, \`$.items[*]\` for each new element, \`$.customer\` when a customer object is written or first
appears. A container written as a value (by a mutation or a JSON Patch \`add\`, \`replace\`, \`copy\` or
\`move\`) is new as a whole, whatever it replaces, and so is every object and array inside it: writing
\`$.items\` whole gives defaults to each of its elements, a field write (\`$.items[0].name\`) to none. The
expression yields an object that is merged in without overwriting members already present (nested objects
merge member by member); members that are derivation targets are skipped. \`$parent\` is the new container
as written so far. Filled paths are listed in \`mutatedPaths\` after the caller's keys. Schema \`default\`s
are filled first. A default the schema refuses fails the write (422 naming the rule or the schema default).

## tests: embedded examples

\`\`\`json
{
  "description": "business customers need a VAT id",
  "given": { "$.customerType": "business" },
  "expect": { "$.company.vatId": { "$meta": { "required": true } }, "$.total": 0 }
}
\`\`\`

Each case runs in a fresh model: defaults are applied, \`given\` is written as one mutation, and every
\`expect\` entry is compared with the merged state. Numbers compare by value, within 1e-9 × the expected value
from magnitude 1 up and within 1e-9 absolute below (so \`0.1 + 0.2 - 0.3\` matches 0, and 5e-10 matches 1e-12:
scale tiny quantities up to test them), an expected \`null\` matches an absent field, and \`{"$meta": {...}}\`
compares members of the field's effective schema (camelCase names: \`readOnly\`, \`relevant\`, \`required\`,
\`maximum\`, ...). A \`given\` that is refused (schema violation, rollback) fails the case, and because metas
lag by one mutation, a \`given\` cannot rely on a limit that it changes itself. Keys are concrete addresses
(no \`[*]\`).

The verification report (\`GET /models/{id}/verification\`) reruns the tests of a live model: \`green\` when
every checkable case passes, \`amber\` otherwise, \`neutral\` when nothing is checkable (objects, arrays,
\`$meta\` and values that depend on the clock or chance are not auto-checked: fields computed by an
expression calling \`$now\`, \`$millis\`, \`$random\` or \`$shuffle\`, filled by a default rule calling them,
or computed from such fields).

## What happens on a mutation

A mutation is a flat map of addresses to values (or an RFC 6902 JSON Patch). It is all or nothing:

1. **Validate** every entry: a concrete canonical address (no \`[*]\`), not a derived target, containers on
   the way of the right kind, the static schema, \`readOnly\`, and the live meta values. Any violation
   refuses the whole mutation before anything is written: 422
   \`{"error": "Schema violation", "violations": [{"path", "keyword", "message"}]}\`.
2. **Apply** the entries in order; missing intermediate objects and arrays are created.
3. **Defaults** fill the containers the writes created.
4. **Derive**: every eager derivation whose inputs changed, level by level; lazy ones become stale.
5. **Metas** whose inputs changed are recomputed.
6. **Constraints** whose inputs changed are checked: a failing rollback constraint reverts everything (409);
   failing flag constraints are reported.
7. **Effects** whose trigger inputs changed are evaluated; caller effects are reported.
8. **Commit**: the state, an audit record and a history entry are kept; subscribers are notified.

The result lists \`mutatedPaths\`, \`derivedUpdated\` (concrete addresses of every derivation evaluated),
\`metaUpdated\` (meta keys), \`flaggedConstraints\`, \`dispatchedEffects\` and, on request, \`traces\`. Other
refusals: an array index beyond \`svc.limits.max-array-index\` (422), an expression that fails or runs past
\`svc.limits.expression-timeout-ms\` (422, naming the node), a JSON Patch \`test\` that fails (409), a full
per-model queue (429). A refused mutation leaves the state untouched.

## Checklist

- Addresses \`$.\`-rooted with brackets for indices; expressions without \`$.\`.
- Derived fields declared \`readOnly\` in the schema, never written by callers or tests.
- Every expression survives the empty document (creation) and missing fields.
- Aggregates wrapped so an empty list gives a number: \`$sum([items.x])\`.
- Constraints written so that missing data fails when it should (\`$exists\`, \`$not(...)\`).
- At least one test per derivation chain, with hand-checked numbers.
`;
