/**
 * Authoring material for agents and tools: the guides, the bundled example
 * specs and the domain guidance topics (the ModelSpec JSON Schema they go with
 * is the model's own: engine/model/model_spec_schema.ts). Pure data and small
 * pure functions; surfaces (MCP resources and tools) serve them.
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
