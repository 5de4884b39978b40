/**
 * The view definition a spec embeds (SPEC.md "View definition") and its
 * evaluated form, the renderer-agnostic EvaluatedView.
 *
 * @module
 */
import type { Json, JsonObject } from "../json/value.ts";

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

/**
 * One evaluated component: `id`, `type` and the members of its record kind
 * (engine/view/groups.ts), every member resolved, null members omitted.
 */
export interface EvaluatedComponent {
  id: string;
  type: string;
  [member: string]: Json;
}

/** The response of a view read. */
export interface EvaluatedView {
  modelId: string;
  viewId: string;
  /** The view's `label`, or its id when unlabeled. */
  title: string;
  /** The view's `layout` (`vertical` when absent). */
  layout: string;
  /** Grid columns of the view, when declared. */
  columns?: Json;
  /** The view's handlers, passed through for the client, when declared. */
  onOpen?: Json;
  onClose?: Json;
  components: EvaluatedComponent[];
}
