/**
 * Guide `svc://guide/spec-evolution`: how to author a SpecEvolution.
 *
 * @module
 */

/** The how to author a SpecEvolution, as markdown. */
export const SPEC_EVOLUTION_GUIDE = `# Evolving a live model's spec

A model's spec changes by a **SpecEvolution**: a diff applied to the live spec, with the model's state
carried forward. It is sent with \`evolve_spec {id, evolution}\` (MCP), \`POST /models/{id}/spec/evolve\`
(REST) or the console's \`evolve-spec\`. The JSON Schema of the body is \`svc://schema/spec-evolution\`.

Every member is optional, and \`{"newVersion": "1.1.0"}\` alone only changes the version. The evolution is
all or nothing: either the new spec and the carried state are installed together, or nothing changes.

## A worked example

Starting from the cart of \`svc://guide/model-spec-format\` (items with \`lineTotal\`, a \`total\`), this
evolution adds a discount code, a discounted total, a rule and a test, and raises the version only if
nobody evolved the model in between:

\`\`\`json
{
  "expectedVersion": "1.0.0",
  "newVersion": "1.1.0",
  "upsertSchemaNodes": [
    { "path": "$.discountPercent", "schema": { "type": "number", "minimum": 0, "maximum": 50 } },
    { "path": "$.payable", "schema": { "type": "number", "readOnly": true } }
  ],
  "upsertDerivations": [
    { "path": "$.payable", "expr": "$round(total * (1 - discountPercent / 100), 2)" }
  ],
  "upsertConstraints": [
    { "id": "discount-needs-items", "expr": "discountPercent = 0 or $count(items) > 0",
      "message": "A discount needs at least one item", "policy": "flag" }
  ],
  "backfill": { "$.discountPercent": 0 },
  "newTests": [
    { "description": "ten percent off", "given": { "$.items[0]": { "price": 20, "qty": 1 }, "$.discountPercent": 10 },
      "expect": { "$.payable": 18 } }
  ]
}
\`\`\`

The answer is \`{"id": "...", "version": "1.1.0"}\`. Subscribers receive a \`spec-evolved\` frame with the
new version and re-read the spec, the view and the state.

## Members

| Member | Effect |
|---|---|
| \`newVersion\` | replaces the version (semver) |
| \`expectedVersion\` | applies the evolution only if the live version equals it |
| \`newSchema\` | replaces the whole schema |
| \`upsertDerivations\` / \`removeDerivations\` | matched by \`path\` / list of paths |
| \`upsertConstraints\` / \`removeConstraints\` | matched by \`id\` / list of ids |
| \`upsertEffects\` / \`removeEffects\` | matched by \`id\` / list of ids |
| \`upsertMetaDerivations\` / \`removeMetaDerivations\` | matched by \`path#property\` (\`$.email#relevant\`) |
| \`upsertDefaultValues\` / \`removeDefaultValues\` | matched by \`path\` / list of paths |
| \`newConstants\` | replaces the whole constants map |
| \`newTests\` | replaces the whole test list; \`[]\` clears it |
| \`newViewDefinition\` | replaces the whole view definition; \`null\` removes it |
| \`newLibrary\` | replaces the library's local layer (a string is its \`define\`, or \`{define, signatures?, requiresConstants?, description?, extends?}\`); \`null\` drops it; layers inherited from a template stay |
| \`backfill\` | map of address to value, written where the state has no value |

An upsert replaces the entry with the same key in place, or appends a new one. Keys compare in canonical
form: \`$['a']\` matches \`$.a\`, and \`#readOnly\` matches \`#read_only\`. A removal that names nothing, a key
listed twice, or a key both upserted and removed refuses the evolution, listing each problem.

### Targeted tiers

For the schema, the view and the constants there are finer members. Within one section, the wholesale
member (\`newSchema\`, \`newViewDefinition\`, \`newConstants\`) cannot be combined with that section's targeted
members; different sections combine freely.

| Section | Members |
|---|---|
| schema | \`upsertSchemaDefs\` (map of \`$defs\` name to schema, each replaced wholesale); \`removeSchemaDefs\` (names; refused while a \`$ref\` still uses one, listing where); \`upsertSchemaNodes\` (\`[{path, schema, required?}]\`: replaces or adds the node at a data path, creating missing intermediate nodes; \`required: true\` adds the member to its parent's \`required\`, \`false\` removes it, absent leaves it; a path may not pass through a \`$ref\`, edit the definition instead); \`removeSchemaNodes\` (paths; also drops the parent's \`required\` entry) |
| view | \`newDefaultView\`; \`upsertViews\` / \`removeViews\` (by view id); \`upsertComponents\` (\`[{viewId, component, parentId?, beforeId?}]\`: without \`parentId\`/\`beforeId\` a component with the same id is replaced in place, otherwise it is placed or moved into \`parentId\` (absent: the view's top level) before \`beforeId\` (absent: at the end)); \`removeComponents\` (\`[{viewId, componentId}]\`, removes the subtree) |
| constants | \`upsertConstants\` (map of name to value); \`removeConstants\` (names; refused while an expression or the library mentions \`$const.<name>\`; dynamic \`$const[...]\` access is not found) |

Schema node paths are data paths: a member name steps into \`properties\`, \`[*]\` into \`items\`
(\`$.items[*].sku\` edits the \`sku\` property of the item schema).

## How it is applied

1. **Shape.** The body is checked against the SpecEvolution schema; unknown members and wholesale/targeted
   mixes are a 400 naming every problem.
2. **Version.** With \`expectedVersion\`, a different live version is a version conflict: REST 409, MCP
   \`{"error": "Version conflict", "expected", "actual"}\` with \`isError: true\`. Read the spec again and
   rebuild the evolution.
3. **Edit.** The diff is applied to a copy of the spec; anything that cannot apply is a 422 listing every
   reason.
4. **Validate.** The evolved spec is validated exactly like a new one (every finding, 422).
5. **Carry the state forward.** Derived values are dropped (the evolved model recomputes its own; those
   of removed derivations do not linger as base fields). \`backfill\` is written. If the schema changed, the
   carried document is checked against the new schema.
6. **Recompute.** Every eager derivation and every meta derivation is evaluated on the carried document.
   Constraints are not enforced and defaults are not re-applied (the document already exists).
7. **Install.** Spec and state are stored, point-in-time history is cleared (its states belong to the
   old spec), traces are kept. Effects that the evolution added or changed are requested if their trigger
   holds; unchanged effects do not fire again.

A failure at any step leaves the model exactly as it was.

## backfill

\`backfill\` gives new fields a value in the existing state: each address is written only where the state has
no value (absent or null); existing values are never overwritten. Rules:

- targets must be base fields of the evolved spec (not derivation targets), and each value must satisfy
  the new schema;
- \`[*]\` expands over the existing elements (\`"$.items[*].currency": "EUR"\` fills every item);
- backfill never creates array elements and never writes under a value that is not an object;
- an object a backfill creates (\`$.addr\` for \`"$.addr.city": "X"\` when there is no \`addr\`) gets schema
  \`default\`s and \`defaultValues\` rules as a write's does, without overwriting the backfilled values;
- it runs before derivations are recomputed, so they see it.

Without backfill a new field is simply absent until written; a derivation that needs it should cope with
absence (\`$exists(x) ? ... : ...\`).

## The stranding guard

When the schema changes, the carried state (after backfill) is validated against the new schema with
every \`required\` ignored (mutations never enforce completeness). Any other violation would strand a value
the new schema no longer admits: a property now forbidden by \`additionalProperties: false\`, a changed
type, a tightened \`enum\`, \`maximum\` or \`pattern\`. The evolution is then refused with 422, listing every
incompatible path:

\`\`\`json
{ "error": "State incompatible", "paths": ["$.status"], "violations": [{ "path": "$.status", "keyword": "enum", "message": "must be equal to one of the allowed values" }] }
\`\`\`

To tighten a schema over existing data, migrate the data first (mutations that rewrite the values), or
widen, backfill and tighten in steps. To drop a field, remove its value with a mutation (or a JSON Patch
\`remove\`), then remove the schema node.

## Recipes

- **Rename a field**: add the new node, upsert derivations to read it, backfill is not a copy (it writes
  constants), so copy values with a mutation; then remove the old node once its values are gone.
- **Change a constant**: \`upsertConstants\`; every eager derivation is recomputed with the new value.
- **Change a library function**: \`newLibrary\` with the whole new local \`define\`; every eager derivation is
  recomputed with it. An export the new layer no longer lists may not be in use: the evolution is refused
  while an expression still mentions \`$name\` (a textual scan), naming each place; upsert or remove those
  expressions in the same evolution.
- **Demand a field**: adding it to the schema's \`required\` never strands state (completeness is not
  checked) and only bites when its parent object is written whole or the member is removed. To insist on
  a value, add a constraint (\`$exists(field)\`) or a \`required\` meta derivation.
- **Add a view component**: \`upsertComponents\` with \`parentId\` of its container and \`beforeId\` of its
  neighbour.
- **Optimistic concurrency**: always send \`expectedVersion\` together with a \`newVersion\` when several
  agents may evolve the same model.
`;
