/**
 * Prompt building: the system prompts (the authoring guides and one bundled
 * example, constant so a provider can cache them), the user prompts a preview
 * returns (they name the model id on a `Model ID:` line), and the feedback of
 * the repair loop (parse errors, truncation, validator findings with fix
 * hints, rollback constraints the initial state breaks, failing tests, view
 * lint).
 *
 * @module
 */
import { EXAMPLES, GUIDES } from "../engine/authoring/mod.ts";
import type { Json } from "../engine/json/value.ts";

const guide = (name: string) => GUIDES.find((g) => g.name === name)!.text;

/** The compact example shown in the generation system prompt. */
const EXAMPLE = EXAMPLES.find((e) => e.name === "shipping-quote") ?? EXAMPLES[0];

const OUTPUT_RULES =
  `Answer with exactly one JSON object and nothing else: no prose before or after, no markdown fences.`;

const TOOLS_NOTE =
  `Tools may be offered: get_domain_guidance returns worked JSONata patterns for common domain problems \
(money, dates, grouping, eligibility rules, status fields); eval_jsonata evaluates an expression against a sample \
input so you can check it before you use it; web_fetch and web_search look up facts about the domain (tax rates, \
formulas). Use them sparingly, then answer.`;

/** The system prompt of spec generation (with or without the view guide). */
export function generationSystemPrompt(includeView: boolean): string {
  const { viewDefinition: _, ...exampleSpec } = EXAMPLE.spec;
  const example = includeView ? EXAMPLE.spec : exampleSpec;
  return [
    `You write ModelSpec documents for a reactive model service. A ModelSpec is a JSON document: a JSON Schema of \
the writable base fields, JSONata derivations of computed fields, meta derivations, constraints, effects, embedded \
tests${
      includeView ? " and a view definition" : ""
    }. The service validates your spec, runs its embedded tests and \
sends back every problem it finds until the spec is right.`,
    OUTPUT_RULES,
    TOOLS_NOTE,
    "# Authoring a ModelSpec\n\n" + guide("model-spec-format"),
    "# JSONata gotchas\n\n" + guide("jsonata-gotchas"),
    ...(includeView ? ["# The view system\n\n" + guide("view-system")] : []),
    `# A complete example (${EXAMPLE.title})\n\n${JSON.stringify(example)}`,
  ].join("\n\n");
}

/** The system prompt of evolution drafts. */
export function evolutionSystemPrompt(): string {
  return [
    `You change live models of a reactive model service by writing a SpecEvolution: a JSON document of targeted \
edits to a ModelSpec (members and tiers described below). The service applies it to the current spec, validates the \
result and sends back every problem until the evolution is right.`,
    OUTPUT_RULES,
    TOOLS_NOTE,
    "# Evolving a spec\n\n" + guide("spec-evolution"),
    "# Authoring a ModelSpec\n\n" + guide("model-spec-format"),
    "# JSONata gotchas\n\n" + guide("jsonata-gotchas"),
  ].join("\n\n");
}

/** The generation prompt a preview returns. */
export function generationPrompt(modelId: string, description: string, includeView: boolean): string {
  return `Model ID: ${modelId}

Write a ModelSpec for the domain described below.

Domain description:
"""
${description.trim()}
"""

Requirements:
- "id" is exactly ${JSON.stringify(modelId)}.
- Writable inputs are properties of "schema" (type object); computed values are "derivations" (path + JSONata expr) \
and are not in the schema's writable fields.
- Rules the state must always satisfy are "constraints" (policy "rollback" refuses the write, "flag" reports it); the \
initial state (schema defaults and defaultValues) must satisfy every rollback constraint.
- Add 2 to 4 embedded "tests" whose "given" sets base fields and whose "expect" checks derived values.
- ${
    includeView
      ? 'Include a "viewDefinition" with a default view that binds the inputs and shows the results.'
      : 'Do not include a "viewDefinition".'
  }

${OUTPUT_RULES}`;
}

/** The evolution prompt a preview returns (the mock recognises "Apply the following changes"). */
export function evolutionPrompt(
  modelId: string,
  currentSpec: unknown,
  request: string,
  includeView: boolean,
): string {
  return `Model ID: ${modelId}

Current spec:
${JSON.stringify(currentSpec, null, 2)}

Apply the following changes:
"""
${request.trim()}
"""

Answer with one SpecEvolution JSON object that makes exactly these changes to the current spec. Leave out \
"expectedVersion" (the service sets it). When a new required field or a changed schema needs values for existing \
state, give them in "backfill". ${
    includeView
      ? "Update the viewDefinition so the view shows what changed."
      : "Do not change the viewDefinition."
  }

${OUTPUT_RULES}`;
}

/** The model id named on a prompt's `Model ID:` line. */
export function modelIdOf(prompt: string): string | undefined {
  return /^Model ID:\s*(.+)$/m.exec(prompt)?.[1]?.trim();
}

// ---------------------------------------------------------------- repair feedback

/** A problem of a candidate, with a hint when one is known. */
export interface Issue {
  location: string;
  message: string;
  hint?: string;
}

const HINTS: readonly [RegExp, string][] = [
  [/unknown field/i, "remove the member or spell it as the spec format guide does"],
  [/JSONata compile error|does not compile/i, "fix the expression syntax; test it with eval_jsonata"],
  [/not a semantic version/i, 'use MAJOR.MINOR.PATCH such as "1.0.0"'],
  [/invalid JSON Schema/i, 'schema must be a valid JSON Schema object with type "object" and properties'],
  [
    /must be a concrete address|canonical|address/i,
    "write addresses as $.field or $.items[0].field (JSON Path)",
  ],
  [/document root '\$' cannot be derived/i, "derive a named field such as $.total"],
  [/duplicate/i, "give every item a unique id"],
  [/is required/i, "add the missing member"],
  [/policy must be/i, 'use "rollback" or "flag"'],
  [/dangling reference/i, "define the referenced $defs entry or remove the $ref"],
  [/cycle|circular/i, "break the cycle: a derivation must not read, directly or not, its own result"],
  [/names no view/i, "name a view id that exists in viewDefinition.views"],
  [/derived|written|writable|read-only/i, "write only base fields; derived paths are computed"],
];

/** A fix hint for a validator message. */
export function fixHint(message: string): string | undefined {
  return HINTS.find(([pattern]) => pattern.test(message))?.[1];
}

const line = (issue: Issue) =>
  `- ${issue.location}: ${issue.message}${issue.hint ? ` — FIX: ${issue.hint}` : ""}`;

/** Feedback of an answer that did not parse as a JSON object (`message` from parseAnswer). */
export function parseFeedback(message: string): string {
  return `${message}. Answer again with the complete JSON object only.`;
}

/** Feedback of an answer cut at the token budget the second time: ask for much less. */
export function shorterFeedback(kind: "spec" | "evolution"): string {
  return kind === "spec"
    ? `Your answer was cut off before it ended, twice. Write a MUCH SHORTER spec: at most 4 derivations, at most 2 \
constraints, no meta derivations, no descriptions or _-prefixed members, no tests, no viewDefinition, and one \
defaultValues rule for "$" that seeds the initial state. ${OUTPUT_RULES}`
    : `Your answer was cut off before it ended, twice. Write a MUCH SHORTER evolution: only the members needed for \
the requested change, no descriptions. ${OUTPUT_RULES}`;
}

/** Feedback of a candidate with problems. */
export function issuesFeedback(
  kind: "spec" | "evolution",
  sections: { title: string; issues: Issue[] }[],
  guidance: string[],
): string {
  const parts = sections.filter((s) => s.issues.length).map((s) =>
    `${s.title} (${s.issues.length}):\n${s.issues.map(line).join("\n")}`
  );
  const reminder = guidance.length
    ? `\n\nThe domain guidance you looked up earlier, for reference:\n${guidance.join("\n\n")}`
    : "";
  return `The ${kind} you wrote has problems.\n\n${
    parts.join("\n\n")
  }\n\nAnswer with the corrected complete ${
    kind === "spec" ? "ModelSpec" : "SpecEvolution"
  }. ${OUTPUT_RULES}${reminder}`;
}

/** A short description of a tool input, for progress reports. */
export function toolDetail(input: Json): string {
  const text = typeof input === "object" && input !== null && !Array.isArray(input)
    ? Object.values(input).map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(" ")
    : JSON.stringify(input);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
