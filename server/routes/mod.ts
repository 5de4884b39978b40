/**
 * The route table: every REST route the server registers and documents: the
 * routes of the operations (engine/operations/), the WebSocket handshake,
 * browser pairing, the actuator and the OpenAPI document itself.
 *
 * @module
 */
import { OPERATIONS } from "../../engine/operations/mod.ts";
import { ACTUATOR_ROUTES } from "./actuator.ts";
import { operationRoutes } from "./operations.ts";
import { PAIRING_ROUTES } from "./pairing.ts";
import { jsonResponse, type Route } from "./route.ts";
import { SUBSCRIBE_ROUTE } from "./subscribe.ts";

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
  ...operationRoutes(OPERATIONS),
  SUBSCRIBE_ROUTE,
  ...PAIRING_ROUTES,
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
