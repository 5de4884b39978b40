/**
 * Every guidance topic, in menu order: pure data (the browser bundles load it
 * from a file of its own when first asked for, see menu.ts).
 *
 * @module
 */
import { DATA_TOPICS } from "./data.ts";
import { FINANCE_TOPICS } from "./finance.ts";
import { RULES_TOPICS } from "./rules.ts";
import type { GuidanceTopic } from "./types.ts";

/** Every topic, in menu order. */
export const GUIDANCE_TOPICS: readonly GuidanceTopic[] = [...FINANCE_TOPICS, ...DATA_TOPICS, ...RULES_TOPICS];
