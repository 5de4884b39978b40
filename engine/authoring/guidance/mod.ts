/**
 * `get_domain_guidance`: a fixed menu of worked JSONata patterns.
 *
 * @module
 */
import { chooseTopics } from "./menu.ts";
import { GUIDANCE_TOPICS } from "./topics.ts";
import type { GuidanceTopic } from "./types.ts";

export { GUIDANCE_TOPIC_IDS } from "./menu.ts";
export { GUIDANCE_TOPICS } from "./topics.ts";
export type { GuidanceSample, GuidanceTopic, SpecFragment } from "./types.ts";

const BY_ID = new Map(GUIDANCE_TOPICS.map((topic) => [topic.id, topic]));

/**
 * The topics named by `topicIds`, in the order asked, each once. Throws a
 * bad request listing the valid ids when the list is empty or names an unknown topic.
 */
export function guidance(topicIds: readonly string[]): GuidanceTopic[] {
  return chooseTopics(topicIds).map((id) => BY_ID.get(id)!);
}
