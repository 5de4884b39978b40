import assert from "node:assert/strict";
import { compile, rejectsWith, runtimeOf } from "../../_test_utils.ts";
import { getAt } from "../../json/document.ts";
import type { Json } from "../../json/value.ts";
import { isMetaExpectation } from "../../runtime/testing.ts";
import { parsePath } from "../../json/path.ts";
import { GUIDANCE_MENU, loadGuidance } from "./menu.ts";
import { guidance, GUIDANCE_TOPIC_IDS, GUIDANCE_TOPICS, type GuidanceTopic } from "./mod.ts";

/** The topics the MCP issue names, by id. */
const REQUIRED_TOPICS = [
  "amortization-schedule",
  "group-by",
  "date-math",
  "percentages",
  "proration",
  "weighted-average",
  "eligibility-rules",
  "currency-conversion",
  "unit-conversion",
  "status-fields",
  "compound-growth",
  "ranking",
];

/** A throwaway spec holding only the topic's fragment. */
function specOf(topic: GuidanceTopic) {
  return { id: `guidance-${topic.id}`, schema: { type: "object" }, ...topic.fragment };
}

/** Runs a topic's sample: its input as one mutation, then what the expectations address. */
async function runSample(topic: GuidanceTopic) {
  const { runtime } = await runtimeOf(specOf(topic));
  const mutation = Object.fromEntries(
    Object.entries(topic.sample.input).map(([key, value]) => [`$.${key}`, value]),
  );
  const outcome = await runtime.evaluateMutation(mutation);
  assert.ok(outcome, "the sample input writes something");
  runtime.commit(outcome);
  const state = await runtime.readState();
  const actual: Record<string, Json> = {};
  for (const [address, expected] of Object.entries(topic.sample.expected)) {
    if (isMetaExpectation(expected)) {
      const schema = runtime.effectiveSchema(address);
      actual[address] = {
        $meta: Object.fromEntries(Object.keys(expected.$meta).map((p) => [p, schema[p] ?? null])),
      };
      continue;
    }
    const parsed = parsePath(address);
    assert.ok(parsed.ok, `${address} is a canonical address`);
    actual[address] = getAt(state, parsed.path) ?? null;
  }
  return { actual, flagged: outcome.result.flaggedConstraints.map((v) => v.constraintId) };
}

Deno.test("the guidance menu covers the required topics with unique kebab-case ids", () => {
  assert.equal(new Set(GUIDANCE_TOPIC_IDS).size, GUIDANCE_TOPIC_IDS.length);
  for (const id of GUIDANCE_TOPIC_IDS) assert.match(id, /^[a-z]+(-[a-z]+)*$/);
  for (const id of REQUIRED_TOPICS) assert.ok(GUIDANCE_TOPIC_IDS.includes(id), `missing topic ${id}`);
  assert.deepEqual(GUIDANCE_TOPIC_IDS, GUIDANCE_TOPICS.map((t) => t.id));
  assert.deepEqual(
    GUIDANCE_MENU,
    GUIDANCE_TOPICS.map(({ id, title }) => ({ id, title })),
    "menu.ts lists every topic",
  );
});

for (const topic of GUIDANCE_TOPICS) {
  Deno.test(`guidance ${topic.id}: the fragment compiles cleanly`, () => {
    assert.ok(topic.title && topic.whenToUse && topic.notes.length > 0, "title, when to use and notes");
    const report = compile(specOf(topic));
    assert.deepEqual(report.errors, []);
    assert.deepEqual(report.warnings, []);
  });

  Deno.test(`guidance ${topic.id}: the engine yields exactly the documented result`, async () => {
    const { actual, flagged } = await runSample(topic);
    assert.deepStrictEqual(actual, topic.sample.expected);
    assert.deepStrictEqual(flagged, topic.sample.flagged ?? []);
  });
}

Deno.test("guidance() returns the chosen topics in the order asked, each once", () => {
  const chosen = guidance(["ranking", "group-by", "ranking"]);
  assert.deepEqual(chosen.map((t) => t.id), ["ranking", "group-by"]);
  assert.equal(chosen[0], GUIDANCE_TOPICS.find((t) => t.id === "ranking"));
});

Deno.test("guidance() refuses an unknown topic, naming it and listing the valid ids", async () => {
  const error = await rejectsWith(() => guidance(["ranking", "astrology"]), "bad_request", /'astrology'/);
  for (const id of GUIDANCE_TOPIC_IDS) assert.ok(error.message.includes(id), `${id} should be listed`);
  assert.doesNotMatch(error.message, /'ranking'/);
});

Deno.test("guidance() refuses an empty choice, listing the valid ids", async () => {
  await rejectsWith(() => guidance([]), "bad_request", /at least one/, /amortization-schedule/);
});

Deno.test("loadGuidance() chooses like guidance() and loads the same topics", async () => {
  assert.deepEqual(await loadGuidance(["ranking", "group-by", "ranking"]), guidance(["ranking", "group-by"]));
  await rejectsWith(() => loadGuidance(["astrology"]), "bad_request", /'astrology'/, /ranking/);
});
