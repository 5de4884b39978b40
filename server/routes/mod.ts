/**
 * The route table: every REST route the server registers and documents.
 *
 * @module
 */
import { ACTUATOR_ROUTES } from "./actuator.ts";
import { BLOB_ROUTES } from "./blobs.ts";
import { MODEL_ROUTES } from "./models.ts";
import { MUTATION_ROUTES } from "./mutations.ts";
import { READ_ROUTES } from "./reads.ts";
import { jsonResponse, type Route } from "./route.ts";
import { SUBSCRIBE_ROUTE } from "./subscribe.ts";
import { VIEW_ROUTES } from "./views.ts";

/** `/v3/api-docs`: the OpenAPI document of this table. */
const API_DOCS_ROUTE: Route = {
  method: "get",
  path: "/v3/api-docs",
  operationId: "apiDocs",
  summary: "The generated OpenAPI 3.1 document",
  tag: "docs",
  responses: { 200: jsonResponse("OpenAPI document", { type: "object" }) },
  handle: (c, { apiDocument }) => c.json(apiDocument()),
};

/** Every route, in documentation order. */
export const ROUTES: readonly Route[] = [
  ...MODEL_ROUTES,
  ...MUTATION_ROUTES,
  ...READ_ROUTES,
  ...VIEW_ROUTES,
  SUBSCRIBE_ROUTE,
  ...BLOB_ROUTES,
  ...ACTUATOR_ROUTES,
  API_DOCS_ROUTE,
];

/** A regular expression matching a route's concrete paths (`{x}` is one segment). */
export function templatePattern(template: string): RegExp {
  const source = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")).join(
    "[^/]+",
  );
  return new RegExp(`^${source}$`);
}

/** Hono's form of a template (`/models/:id`). */
export function honoPath(template: string): string {
  return template.replace(/\{([^}]+)\}/g, ":$1");
}
