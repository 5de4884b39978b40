/**
 * The view definition a spec embeds (SPEC.md "View definition"); its evaluated
 * form is engine/view/evaluate.ts's EvaluatedView.
 *
 * @module
 */
import type { JsonObject } from "../../json/value.ts";

/** A component as written in the spec: `id` and `type` required, the rest per type. */
export interface ComponentSpec extends JsonObject {
  id: string;
  type: string;
}

/** One view of a definition. */
export interface ViewSpec extends JsonObject {
  id: string;
}

/** The `viewDefinition` member of a spec. */
export interface ViewDefinition extends JsonObject {
  defaultView: string;
  views: ViewSpec[];
}
