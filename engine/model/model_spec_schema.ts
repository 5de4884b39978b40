/**
 * The ModelSpec JSON Schema (draft 2020-12): the one description of a spec's
 * shape (SPEC.md "ModelSpec"). Validation checks every spec against it first
 * (`shape.ts` words its errors as findings) and the section compilers add what
 * only they can judge: JSONata syntax, dependency cycles, overlapping targets,
 * unresolvable `$ref`s, view id references. Agents and tools read the same
 * schema: MCP's `create_model`, `validate_spec`, `test_spec` and `dry_run`
 * embed it in their input schema, and it is served as `svc://schema/model-spec`.
 *
 * Members the compiler ignores (an entry's extra keys, `_`-prefixed notes at the
 * top level) pass, and null stands for absent wherever the compiler reads it so.
 * There is no `anyOf`: a value of the wrong type fails one keyword, so one
 * problem is one finding.
 *
 * The schema carries an `$id`, so its internal `#/$defs/...` references resolve
 * even when it is embedded as a property of a larger schema.
 *
 * @module
 */
import type { JsonObject } from "../json/value.ts";
import { META_PROPERTIES } from "./types.ts";

/** Characters a dot-notation member name may hold (as the path parser reads them). */
const NAME = "[A-Za-z_$\\u0080-\\uffff][A-Za-z0-9_$\\u0080-\\uffff-]*";
const QUOTED = `'(?:[^'\\\\]|\\\\.)*'|"(?:[^"\\\\]|\\\\.)*"`;
const MEMBER = `\\.${NAME}|\\[\\s*(?:${QUOTED})\\s*\\]`;
const INDEX = "\\[\\s*\\d+\\s*\\]";
const WILDCARD = "\\[\\s*\\*\\s*\\]";

/** A `$`-rooted address made of `segment`s, surrounding spaces allowed (the parser trims them). */
function addressPattern(segment: string): string {
  return `^\\s*\\$(?:${segment})*\\s*$`;
}

/** Canonical address (RFC 9535 subset), wildcards allowed: `$`, `$.a.b`, `$.items[0].x`, `$.items[*].x`. */
export const ADDRESS_PATTERN = addressPattern(`${MEMBER}|${INDEX}|${WILDCARD}`);
/** A canonical address naming one concrete location (no `[*]`). */
export const CONCRETE_ADDRESS_PATTERN = addressPattern(`${MEMBER}|${INDEX}`);

/** Why `text` is not a reference (the words of the spec check and of resolution alike). */
export function notAReference(text: unknown): string {
  const given = text === undefined
    ? "a reference is required"
    : typeof text === "string"
    ? `'${text}' is not a reference`
    : `${JSON.stringify(text)} is not a reference`;
  return `${given}: use [ns/]name with an optional @version, @range or @sha256:<digest>`;
}

/** A pre-release identifier: numeric without leading zeros, or alphanumeric (semver.org §9). */
const PRE_RELEASE_ID = "(?:0|[1-9]\\d*|\\d*[A-Za-z-][0-9A-Za-z-]*)";
/**
 * A SemVer 2.0.0 version, unanchored and without capture groups: `MAJOR.MINOR.PATCH` (no leading
 * zeros), an optional `-pre.release` (dot-separated identifiers, numeric ones without leading zeros)
 * and optional `+build.metadata` (semver.org §2, §9, §10). The one definition of a version: the
 * `version` member and a reference's pin here, and engine/composition/coordinate.ts, which parses,
 * orders and matches versions and pins by it (engine/composition imports engine/model, not back).
 */
export const SEMVER_PATTERN = "(?:0|[1-9]\\d*)\\.(?:0|[1-9]\\d*)\\.(?:0|[1-9]\\d*)" +
  `(?:-${PRE_RELEASE_ID}(?:\\.${PRE_RELEASE_ID})*)?(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?`;

/**
 * Longest model id: every surface must be able to name it (a URL segment of the REST routes) and every
 * store to key by it (Deno KV keys are at most 2 KiB). Ids are ASCII (the coordinate pattern), so this
 * is bytes too.
 */
export const MAX_ID_LENGTH = 1024;

const COORDINATE_PATTERN = "^([A-Za-z][A-Za-z0-9_-]*/)?[A-Za-z][A-Za-z0-9_-]*$";

/** The finding of an id that does not match the coordinate pattern. */
export const invalidIdMessage = (id: unknown): string =>
  `'${id}' is not a valid id: use [namespace/]name, each segment starting with a letter followed by ` +
  "letters, digits, '-' or '_'";

/** The finding of an id over {@link MAX_ID_LENGTH}. */
export const longIdMessage = (id: unknown): string =>
  `an id is at most ${MAX_ID_LENGTH} characters; this one has ${String(id).length}`;

/** The finding of an address over {@link MAX_ID_LENGTH}: results, traces and audit records name it whole. */
export const longAddressMessage = (address: string): string =>
  `an address is at most ${MAX_ID_LENGTH} characters; this one has ${address.length}`;

/** Why `id` cannot name a model (the spec's own rule), or `undefined` when it can. */
export function idProblem(id: string): string | undefined {
  if (id.length > MAX_ID_LENGTH) return longIdMessage(id);
  return new RegExp(COORDINATE_PATTERN).test(id) ? undefined : invalidIdMessage(id);
}
const REFERENCE_PATTERN = "^([A-Za-z][A-Za-z0-9_-]*(\\.[A-Za-z][A-Za-z0-9_-]*)*/)?[A-Za-z][A-Za-z0-9_-]*" +
  `(@((\\^|~|>=|>|<=|<|=)?${SEMVER_PATTERN}|sha256:[0-9a-f]{64}))?$`;
const SEMVER_OR_BLANK = `^(\\s*|${SEMVER_PATTERN})$`;

/** A reference to a definition, with an optional description of this use (2020-12 allows siblings of `$ref`). */
const ref = (name: string, description?: string): JsonObject =>
  description === undefined ? { $ref: `#/$defs/${name}` } : { $ref: `#/$defs/${name}`, description };
const text = (description: string): JsonObject => ({ type: "string", description });
/** A string with at least one non-space character (what the compiler requires of ids and types). */
const nonBlank = (description: string): JsonObject => ({
  type: "string",
  minLength: 1,
  pattern: "\\S",
  description,
});
/** An entry's id: non-blank and, like a model id, at most {@link MAX_ID_LENGTH} (traces and results carry it). */
const entryId = (description: string): JsonObject => ({ ...nonBlank(description), maxLength: MAX_ID_LENGTH });
/** A list of `name` entries; null, like absent, means none. */
const listOf = (name: string, description: string): JsonObject => ({
  type: ["array", "null"],
  items: ref(name),
  description,
});
/** An address member that null leaves unset, as absent does. */
const optionalAddress = (description?: string): JsonObject => ({
  type: ["string", "null"],
  pattern: ADDRESS_PATTERN,
  ...(description === undefined ? {} : { description }),
});
/** A view member that is a boolean, an always-evaluated JSONata string, or null (inherit from meta). */
const stateMember = (description: string): JsonObject => ({
  type: ["boolean", "string", "null"],
  description,
});
/** A list of objects whose members `description` names: `<what>: [{<member>, …}]`, declared as `properties`. */
const objects = (description: string): JsonObject => ({
  type: ["array", "null"],
  items: {
    type: "object",
    properties: Object.fromEntries(
      description.slice(description.indexOf("{") + 1, -2).split(", ").map((m) => [m, {}]),
    ),
  },
  description,
});

const DEFS: JsonObject = {
  Address: {
    type: "string",
    pattern: ADDRESS_PATTERN,
    description: "canonical JSON Path address: rooted at `$`, member names after `.` (or `['odd key']`), " +
      "bracket indices (`$.items[0].name`), `[*]` for every element (`$.items[*].lineTotal`). The legacy " +
      "dot-index form `$.items.0.name` and unrooted forms are rejected",
  },
  ConcreteAddress: {
    type: "string",
    pattern: CONCRETE_ADDRESS_PATTERN,
    description: "canonical address of one location: like Address but without `[*]`",
  },
  Expression: {
    type: "string",
    minLength: 1,
    pattern: "\\S",
    description: "a JSONata expression evaluated against the merged document (no `$.` prefix: " +
      "`items.price`, not `$.items.price`); `$const.<name>` reads a constant",
  },
  Reference: {
    type: "string",
    pattern: REFERENCE_PATTERN,
    description:
      "a model coordinate `[ns/]name` (the namespace may be dotted) with an optional version pin " +
      "`@1.2.3`, `@^1.2.0`, `@~1.2.0`, `@>=1.0.0`, `@2.0.0-rc.1`, `@sha256:<64 hex>`",
  },
  Coordinate: {
    type: "string",
    pattern: COORDINATE_PATTERN,
    maxLength: MAX_ID_LENGTH,
    description: "model coordinate `[namespace/]name`; each segment starts with a letter followed by " +
      `letters, digits, \`-\` or \`_\`; at most ${MAX_ID_LENGTH} characters`,
  },
  LibraryDefine: {
    type: "string",
    description: "JSONata ending with the array of the names the layer exports, e.g. " +
      '`( $rate := $const.vat; $net := function($gross) { $gross / (1 + $rate) }; ["net", "rate"] )`; ' +
      "a function export is called `$net(...)` in every expression of the model, any other export is a " +
      "value computed once. It reads only function arguments and `$const` (no fields, `$`, `$$`, `*`, " +
      "`**` outside predicates), never `$now`, `$millis` or `$random`; at most 20000 characters",
  },
  LibrarySignatures: {
    type: "object",
    additionalProperties: { type: "string", pattern: "^<.*>$" },
    description: 'JSONata signatures of function exports by name (`{"net": "<n:n>"}`); calls are ' +
      "checked against them",
  },
  LibraryConstants: {
    type: "array",
    items: { type: "string" },
    description: "the model constants the layer reads as `$const.<name>`; each must exist in the model, " +
      "and an inherited layer must list every constant it reads",
  },
  LibraryLayer: {
    type: "object",
    required: ["define"],
    additionalProperties: false,
    description: "one layer of a library; an inherited layer carries the pin of the template it came from",
    properties: {
      define: ref("LibraryDefine"),
      signatures: ref("LibrarySignatures"),
      requiresConstants: ref("LibraryConstants"),
      ref: ref("Coordinate", "the template the layer was inherited from"),
      version: text("that template's version"),
      digest: text("that template's digest (`sha256:…`)"),
      repo: text("the repository the template was resolved from"),
      owner: { type: ["string", "null"], description: "the template's namespace" },
    },
  },
  Derivation: {
    type: "object",
    required: ["path", "expr"],
    description: "a computed, read-only field",
    properties: {
      path: {
        $ref: "#/$defs/Address",
        pattern: "^(?!\\s*\\$\\s*$)",
        description: "target address (not `$` itself); `[*]` evaluates the expression once per array " +
          "element with `$parent` bound to that element, and must be followed by a field name " +
          "(`$.items[*].lineTotal`)",
      },
      expr: ref("Expression"),
      evaluation: {
        enum: ["eager", "lazy"],
        default: "eager",
        description: "eager: evaluated inside every mutation that touches its inputs; lazy: marked stale " +
          "and evaluated when the state or the field is read",
      },
      description: text("what the field means"),
    },
  },
  MetaDerivation: {
    type: "object",
    required: ["path", "expr", "property"],
    description: "live metadata of a field, stored in the meta cache under `<path>#<snake_case property>` " +
      "(`$.email#relevant`, `$.total#read_only`) and overlaid on the field's effective schema",
    properties: {
      path: ref("Address"),
      property: {
        enum: [...META_PROPERTIES],
        description: "`relevant` (false hides the bound view component; the value is kept) has no JSON " +
          "Schema equivalent; the limits (minimum, maximum, multipleOf, minLength, maxLength, pattern, " +
          "enum) are enforced on later writes, `required: true` refuses clearing the field, " +
          "`readOnly: true` refuses writes",
      },
      expr: ref("Expression"),
      description: text("why the metadata changes"),
    },
  },
  Constraint: {
    type: "object",
    required: ["id", "message", "policy", "expr"],
    description: "a boolean invariant checked after derivations settle; a result of false, 0, '' or an " +
      "evaluation error fails it, while null or no value passes",
    properties: {
      id: entryId("unique among the constraints"),
      path: {
        description: "absent or null: global, evaluated once; an address or a list of addresses: the " +
          "fields it guards; one `[*]` address (`$.items[*]`): evaluated once per element with `$parent` " +
          "bound to the element",
        type: ["string", "array", "null"],
        pattern: ADDRESS_PATTERN,
        items: ref("Address"),
      },
      expr: ref("Expression"),
      message: text("reported with the violation"),
      policy: {
        enum: ["rollback", "flag"],
        description: "rollback: the whole mutation is reverted (409 with the violations); flag: the " +
          "mutation commits and the violation is listed in `flaggedConstraints`",
      },
    },
  },
  DefaultValueRule: {
    type: "object",
    required: ["path", "expr"],
    description: "merged into a container when a write creates it (members already written are kept); " +
      "a `$` rule seeds the document when the model is created",
    properties: {
      path: ref(
        "Address",
        "the container the rule applies to: `$`, an object field, or `$.items[*]` for every " +
          "new element",
      ),
      expr: ref(
        "Expression",
        "JSONata producing an object of default members; `$parent` is the new container",
      ),
      description: text("what the defaults are for"),
    },
  },
  Effect: {
    type: "object",
    required: ["id", "trigger"],
    description: "an effect request emitted as data when its trigger is truthy after a mutation that " +
      "touched the trigger's inputs; unknown members are ignored",
    properties: {
      id: entryId("unique among the effects"),
      executor: {
        type: "string",
        minLength: 1,
        pattern: "\\S",
        default: "server",
        description: "`caller` (pure: listed in the mutation result's dispatchedEffects), `server` " +
          "(guarded outbound HTTP), `llm`, `timer`, or an operator-installed kind",
      },
      trigger: ref("Expression"),
      emit: text("caller effects: the command name reported as `emit`"),
      payload: {
        description: "caller effects: one JSONata expression, or an object whose members are JSONata " +
          "expressions evaluated one by one",
        type: ["string", "object", "null"],
        minLength: 1,
        pattern: "\\S",
        additionalProperties: ref("Expression"),
      },
      dedupeKey: ref(
        "Expression",
        "JSONata; with a status document, the effect is not re-sent while the key is unchanged",
      ),
      statusPath: ref("ConcreteAddress", "where the status document {phase, key, at, error} is kept"),
      request: {
        type: "object",
        description: "server effects: {method (GET), url, headers, body}; `{expr}` is interpolated in " +
          "url and header values",
        properties: {
          method: { type: "string" },
          url: { type: "string" },
          headers: { type: "object" },
          body: {},
        },
      },
      requests: ref("Expression", "server effects: JSONata yielding an array of requests (fan-out)"),
      response: {
        type: "object",
        description: "how the result folds back",
        properties: {
          set: {
            type: "object",
            propertyNames: ref("Address"),
            additionalProperties: { type: "string" },
            description: "map of target address to JSONata evaluated with `$response` and `$status`",
          },
        },
      },
      target: {
        type: "object",
        required: ["ref"],
        description: "server effects aimed at another model: a write-link {ref, path} (with a sibling " +
          "`body`) or a read-link {ref, read}",
        properties: {
          ref: ref("Reference"),
          path: ref("Address"),
          read: ref("Address"),
          watch: {
            type: "boolean",
            description: "read-links: re-read whenever the target commits a change there",
          },
          binding: { description: "reserved" },
        },
      },
      body: ref("Expression", "JSONata for the value a write-link target receives"),
      policy: {
        type: "object",
        description: "execution policy: timeoutMs (5000), retries (0), backoff",
        properties: {
          timeoutMs: { type: "integer", minimum: 0 },
          retries: { type: "integer", minimum: 0 },
          backoff: {},
        },
      },
      prompt: ref("Expression", "llm effects: JSONata producing the prompt"),
      responseSchema: { type: "object", description: "llm effects: JSON Schema of the expected answer" },
      at: ref("Expression", "timer effects: JSONata for the instant to fire"),
      afterMs: ref("Expression", "timer effects: JSONata for the delay in ms"),
      definitionHash: { type: "string", readOnly: true },
      origin: {
        type: "object",
        readOnly: true,
        description: "written when a branch inherits the effect: {fromRef, fromOwner}",
      },
      approval: {
        type: "object",
        readOnly: true,
        description: "written when an inherited effect of another owner is approved: {definitionHash, " +
          "approvedAt}; it runs while its definitionHash is unchanged",
      },
      description: text("what the effect is for"),
    },
  },
  MetaExpectation: {
    type: "object",
    required: ["$meta"],
    description: "asserts meta values of the field's effective schema, by camelCase property name",
    properties: {
      $meta: {
        type: "object",
        description:
          "map of property (minimum, maximum, required, readOnly, relevant, ...) to expected value",
      },
    },
  },
  TestCase: {
    type: "object",
    required: ["given", "expect"],
    description: "run in a fresh model: `given` is applied as one mutation, then every `expect` entry is " +
      "compared with the merged state (numbers by value; expected null matches an absent field)",
    properties: {
      description: { type: "string" },
      given: {
        type: "object",
        propertyNames: ref("ConcreteAddress"),
        description: "map of address to value, written as one mutation",
      },
      expect: {
        type: "object",
        propertyNames: ref("ConcreteAddress"),
        additionalProperties: {
          description: "the expected value, or {$meta: {...}} for meta values",
          if: { type: "object", required: ["$meta"] },
          then: ref("MetaExpectation"),
        },
        description: "map of address to expected value",
      },
    },
  },
  EventHandler: {
    type: ["object", "null"],
    description: "run by the client: `mutations` (JSONata yielding a map of address to value), then " +
      "`navigate` (a view id)",
    properties: {
      mutations: { type: ["string", "null"] },
      navigate: { description: "the id of a view to activate" },
    },
  },
  Component: {
    type: "object",
    required: ["id", "type"],
    description: "one view component; which members apply depends on `type` (see " +
      "svc://guide/view-system); an unknown type is kept verbatim and evaluated as a basic input",
    properties: {
      id: entryId("unique within the view"),
      type: nonBlank(
        "e.g. textField, numericField, currencyField, selectField, sliderField, label, " +
          "staticText, badge, statTile, dataTable, dataChart, keyValueList, progressBar, group, card, tabs, " +
          "tabItem, sectionList, button, menu",
      ),
      label: text("plain text, never evaluated"),
      bind: optionalAddress(),
      bindFrom: optionalAddress(),
      bindTo: optionalAddress(),
      dependsOn: optionalAddress(),
      visible: stateMember("false hides; null or absent inherits `<bind>#relevant`"),
      enabled: stateMember("absent: enabled unless read-only"),
      readOnly: stateMember("null or absent inherits `<bind>#read_only`"),
      required: stateMember("null or absent inherits `<bind>#required`"),
      text: { description: "display text: a string is evaluated as JSONata only when it contains `$`" },
      value: { description: "display value: a string is evaluated as JSONata only when it contains `$`" },
      delta: { description: "stat tiles: evaluated as JSONata only when it contains `$`" },
      caption: { description: "stat tiles: evaluated as JSONata only when it contains `$`" },
      trend: { description: "stat tiles: up, down, flat, or a `$` expression" },
      format: { description: "number, integer, currency, percent; staticText: markdown, text, html" },
      currency: { description: "ISO-4217 code" },
      variant: { description: "primary, secondary, success, warning, danger" },
      layout: { description: "containers: vertical, horizontal, grid" },
      options: objects("choices: [{value, label, country}]"),
      tableColumns: objects("dataTable columns: [{field, header, format, currency, width}]"),
      chartSeries: objects("dataChart series: [{field, label, color}]"),
      items: objects("keyValueList rows: [{label, bind, text, format, currency}]"),
      menuItems: objects("menu entries: [{label, targetView, icon}]"),
      itemView: { type: ["string", "null"], description: "sectionList: a view rendered once per element" },
      components: listOf("Component", "children of a container or section list"),
      onChange: ref("EventHandler"),
      onClick: ref("EventHandler"),
      onOpen: ref("EventHandler"),
      onClose: ref("EventHandler"),
      onRetry: ref("EventHandler"),
    },
  },
  View: {
    type: "object",
    required: ["id"],
    properties: {
      id: entryId("unique in the model"),
      label: { type: "string" },
      layout: { description: "vertical (default), horizontal, grid, tabs or wizard" },
      columns: { description: "grid columns" },
      components: listOf("Component", "the view's top-level components"),
      onOpen: ref("EventHandler"),
      onClose: ref("EventHandler"),
    },
  },
  ViewDefinition: {
    type: ["object", "null"],
    required: ["defaultView", "views"],
    description: "renderer-agnostic UI definition, evaluated by the service into an EvaluatedView; null, " +
      "like absent, means none",
    properties: {
      renderer: { enum: ["builtin", null], description: "reserved: always builtin" },
      defaultView: { type: "string", minLength: 1, description: "the id of a view in `views`" },
      views: { type: "array", items: ref("View"), description: "the views; ids unique" },
    },
  },
};

/** The ModelSpec JSON Schema (draft 2020-12). */
export const MODEL_SPEC_SCHEMA: JsonObject = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "svc://schema/model-spec",
  title: "ModelSpec",
  description: "A declarative reactive model: a JSON Schema for the writable base document, derived " +
    "fields, live field metadata, constraints, effects, default values, embedded tests and an optional " +
    "view definition. Addresses (`path`, test keys, `bind`) are canonical JSON Path (`$.items[0].qty`); " +
    "expressions (`expr`, `trigger`, `payload`) are JSONata without the `$.` prefix. Guide: " +
    "svc://guide/model-spec-format.",
  type: "object",
  required: ["id", "schema"],
  patternProperties: { "^_": { description: "annotations such as _name and _description, ignored" } },
  additionalProperties: false,
  properties: {
    id: ref("Coordinate"),
    version: {
      type: ["string", "null"],
      pattern: SEMVER_OR_BLANK,
      default: "1.0.0",
      description: "semantic version MAJOR.MINOR.PATCH with an optional -pre.release and +build " +
        "(SemVer 2.0.0, e.g. 2.0.0-rc.1, 1.0.0+build.5); blank or absent means 1.0.0",
    },
    template: {
      type: ["object", "null"],
      required: ["ref"],
      additionalProperties: false,
      properties: {
        ref: ref("Reference", "the template: a coordinate [ns/]name[@version|range|sha256:digest]"),
      },
      description: "makes the model a branch: the template is resolved and flattened into this spec when " +
        "the model is created (null afterwards)",
    },
    lineage: {
      type: "array",
      readOnly: true,
      items: { type: "object" },
      description: "the pinned ancestor chain, nearest first: {ref, version, digest, repo, owner}; written " +
        "by branching",
    },
    schema: {
      type: "object",
      description: "JSON Schema 2020-12 of the base document; only local `#/$defs/<Name>` references " +
        "resolve",
    },
    constants: {
      type: ["object", "null"],
      description: "immutable named values, bound as `$const.<name>` in every expression",
    },
    library: {
      type: ["string", "object", "null"],
      additionalProperties: false,
      description: "JSONata shared by every expression of the model: a string is the `define` of the one " +
        "local layer; the object form has `define` (the local layer, last), optional `signatures`, " +
        "`requiresConstants`, `description`, `extends` and inherited `layers` (at most 8 in all). Layer k " +
        "sees the exports of the layers before it; a later layer wins a name clash. Export names are " +
        "identifiers that shadow no built-in and are none of const, parent, self, response, now, status. " +
        "A call of a function no library exports is an error anywhere in the spec",
      properties: {
        description: text("what the library offers"),
        define: ref("LibraryDefine"),
        signatures: ref("LibrarySignatures"),
        requiresConstants: ref("LibraryConstants"),
        extends: ref(
          "Reference",
          "a model whose library this one extends: resolved at create into pinned layers under this one's",
        ),
        layers: { type: "array", items: ref("LibraryLayer"), description: "inherited layers, oldest first" },
      },
    },
    defaultValues: listOf("DefaultValueRule", "defaults merged into newly created containers"),
    derivations: listOf("Derivation", "computed read-only fields"),
    metaDerivations: listOf("MetaDerivation", "live per-field metadata"),
    constraints: listOf("Constraint", "boolean invariants with a rollback or flag policy"),
    effects: listOf("Effect", "effect requests emitted as data"),
    tests: listOf("TestCase", "embedded test cases"),
    viewDefinition: ref("ViewDefinition"),
    actions: {
      type: "array",
      maxItems: 0,
      description: "removed section: only an empty array is accepted; declare effects instead",
    },
  },
  $defs: DEFS,
};
