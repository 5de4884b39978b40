/**
 * The four authoring guides, as MCP resources (`svc://guide/<name>`, markdown).
 *
 * @module
 */
import { JSONATA_GOTCHAS_GUIDE } from "./jsonata_gotchas.ts";
import { MODEL_SPEC_FORMAT_GUIDE } from "./model_spec_format.ts";
import { SPEC_EVOLUTION_GUIDE } from "./spec_evolution.ts";
import { VIEW_SYSTEM_GUIDE } from "./view_system.ts";

/** A guide served as a resource. */
export interface Guide {
  /** `svc://guide/<name>`. */
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: "text/markdown";
  text: string;
}

const guide = (name: string, title: string, description: string, text: string): Guide => ({
  uri: `svc://guide/${name}`,
  name,
  title,
  description,
  mimeType: "text/markdown",
  text,
});

/** Every guide, in reading order. */
export const GUIDES: readonly Guide[] = [
  guide(
    "model-spec-format",
    "Authoring a ModelSpec",
    "Every section of a spec: addresses vs JSONata, derivations (eager, lazy, [*] and $parent), constants, " +
      "meta derivations, constraints, effects, default values, tests, and the mutation pipeline with its errors.",
    MODEL_SPEC_FORMAT_GUIDE,
  ),
  guide(
    "jsonata-gotchas",
    "JSONata gotchas in this service",
    "Missing vs null, comparisons with absent fields, singleton lists, empty aggregates, & vs +, banker's " +
      "rounding, filters and indices, $parent vs %, dependency extraction limits, time limits.",
    JSONATA_GOTCHAS_GUIDE,
  ),
  guide(
    "spec-evolution",
    "Evolving a live model's spec",
    "SpecEvolution members and targeted tiers, expectedVersion, backfill, the stranding guard and " +
      "all-or-nothing application.",
    SPEC_EVOLUTION_GUIDE,
  ),
  guide(
    "view-system",
    "The view system",
    "View definitions, component groups, bind vs expressions, the $ rule for display fields, meta " +
      "inheritance, section lists and viewDelta.",
    VIEW_SYSTEM_GUIDE,
  ),
];
