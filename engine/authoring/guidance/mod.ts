/**
 * `get_domain_guidance`: a fixed menu of worked JSONata patterns.
 *
 * @module
 */
import { badRequest } from "../../errors.ts";
import { DATA_TOPICS } from "./data.ts";
import { FINANCE_TOPICS } from "./finance.ts";
import { RULES_TOPICS } from "./rules.ts";
import type { GuidanceTopic } from "./types.ts";

export type { GuidanceSample, GuidanceTopic, SpecFragment } from "./types.ts";

/** Every topic, in menu order. */
export const GUIDANCE_TOPICS: readonly GuidanceTopic[] = [...FINANCE_TOPICS, ...DATA_TOPICS, ...RULES_TOPICS];

/** The topic ids, for the tool's `enum`. */
export const GUIDANCE_TOPIC_IDS: readonly string[] = GUIDANCE_TOPICS.map((topic) => topic.id);

const BY_ID = new Map(GUIDANCE_TOPICS.map((topic) => [topic.id, topic]));

/**
 * The topics named by `topicIds`, in the order asked, each once. Throws a
 * bad request listing the valid ids when the list is empty or names an unknown topic.
 */
export function guidance(topicIds: readonly string[]): GuidanceTopic[] {
  const valid = `valid topics: ${GUIDANCE_TOPIC_IDS.join(", ")}`;
  if (!Array.isArray(topicIds) || topicIds.length === 0) {
    throw badRequest(`choose at least one guidance topic; ${valid}`);
  }
  const unknown = topicIds.filter((id) => !BY_ID.has(id));
  if (unknown.length) {
    throw badRequest(`unknown guidance topic ${unknown.map((id) => `'${id}'`).join(", ")}; ${valid}`);
  }
  return [...new Set(topicIds)].map((id) => BY_ID.get(id)!);
}
