/**
 * Authoring material for agents and tools: the ModelSpec JSON Schema, the
 * guides, the bundled example specs and the domain guidance topics. Pure data
 * and small pure functions; surfaces (MCP resources and tools) serve them.
 *
 * @module
 */
export { type Guide, GUIDES } from "./guides/mod.ts";
export { type Example, EXAMPLES } from "./examples/mod.ts";
export {
  guidance,
  GUIDANCE_TOPIC_IDS,
  GUIDANCE_TOPICS,
  type GuidanceSample,
  type GuidanceTopic,
  type SpecFragment,
} from "./guidance/mod.ts";
