/**
 * The menu of `get_domain_guidance`: each topic's id and title (what the
 * tool's input and description list), and the choice of topics by id. The
 * topics themselves (topics.ts, some 9 KB gzipped) are loaded when first
 * asked for, so the browser bundles fetch them from a file of their own
 * (build/on_demand.ts); guidance_test.ts keeps the menu and the topics alike.
 *
 * @module
 */
import { badRequest } from "../../errors.ts";
import type { GuidanceTopic } from "./types.ts";

/** One entry of the menu. */
export interface GuidanceMenuEntry {
  id: string;
  title: string;
}

/** Every topic's id and title, in menu order. */
export const GUIDANCE_MENU: readonly GuidanceMenuEntry[] = [
  { id: "amortization-schedule", title: "Amortization schedule (annuity loan)" },
  { id: "compound-growth", title: "Compound growth with contributions" },
  { id: "percentages", title: "Percentages: share of total, change, discount" },
  { id: "proration", title: "Proration by days" },
  { id: "weighted-average", title: "Weighted average" },
  { id: "currency-conversion", title: "Currency conversion with a rate table" },
  { id: "group-by", title: "Group by and aggregate" },
  { id: "ranking", title: "Ranking and top N" },
  { id: "running-totals", title: "Running totals and balances" },
  { id: "date-math", title: "Date math with ISO dates" },
  { id: "unit-conversion", title: "Unit conversion with a factor table" },
  { id: "missing-values", title: "Missing values and safe defaults" },
  { id: "text-formatting", title: "Building and formatting text" },
  { id: "eligibility-rules", title: "Eligibility rules with reasons" },
  { id: "status-fields", title: "Status fields from thresholds and workflows" },
  { id: "conditional-fields", title: "Conditional fields: relevant, required, dynamic limits" },
];

/** The topic ids, for the tool's `enum`. */
export const GUIDANCE_TOPIC_IDS: readonly string[] = GUIDANCE_MENU.map((topic) => topic.id);

/**
 * The ids of `topicIds` in the order asked, each once. Throws a bad request
 * listing the valid ids when the list is empty or names an unknown topic.
 */
export function chooseTopics(topicIds: readonly string[]): string[] {
  const valid = `valid topics: ${GUIDANCE_TOPIC_IDS.join(", ")}`;
  if (!Array.isArray(topicIds) || topicIds.length === 0) {
    throw badRequest(`choose at least one guidance topic; ${valid}`);
  }
  const unknown = topicIds.filter((id) => !GUIDANCE_TOPIC_IDS.includes(id));
  if (unknown.length) {
    throw badRequest(`unknown guidance topic ${unknown.map((id) => `'${id}'`).join(", ")}; ${valid}`);
  }
  return [...new Set(topicIds)];
}

/** The topics named by `topicIds` (see {@link chooseTopics}), loading them on first use. */
export async function loadGuidance(topicIds: readonly string[]): Promise<GuidanceTopic[]> {
  const chosen = chooseTopics(topicIds);
  const { GUIDANCE_TOPICS } = await import("./topics.ts");
  return chosen.map((id) => GUIDANCE_TOPICS.find((topic) => topic.id === id)!);
}
