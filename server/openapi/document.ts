/**
 * Generates the OpenAPI 3.1 document from the route table, the same table the
 * app registers its handlers from.
 *
 * @module
 */
import { SERVICE_NAME, SERVICE_VERSION } from "../../engine/version.ts";
import { type ResponseDoc, type Route, unauthorizedDoc } from "../routes/route.ts";
import { COMPONENT_SCHEMAS, ref } from "../routes/schemas.ts";

const PROBLEM = { "application/problem+json": ref("Problem") };

/** Responses every route can give, added unless the route documents its own. */
function commonResponses(route: Route): Record<number, ResponseDoc> {
  const common: Record<number, ResponseDoc> = {
    429: {
      description: "per-client rate limit exceeded (svc.rate-limit.*), with Retry-After",
      content: PROBLEM,
    },
  };
  if (!route.open) {
    common[401] = unauthorizedDoc("missing or invalid API key (when svc.api.key is set)");
  }
  if (route.requestBody) {
    common[413] = {
      description: "request body over its cap (svc.http.max-body-size, svc.multipart.*)",
      content: PROBLEM,
    };
    common[415] = {
      description: `Content-Type is not ${Object.keys(route.requestBody.content).join(" or ")}`,
      content: PROBLEM,
    };
  }
  return common;
}

function operation(route: Route) {
  const common = commonResponses(route);
  const responses = { ...common, ...route.responses };
  const [gate, own] = [common[401], route.responses[401]];
  // A route's own 401 comes besides the key gate's (a request with no credential at all), in the same shape.
  if (gate && own) responses[401] = { ...own, description: `${own.description}; ${gate.description}` };
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.open ? { security: [] } : {}),
    ...(route.parameters?.length
      ? {
        parameters: route.parameters.map((p) => ({
          ...p,
          required: p.in === "path" ? true : p.required ?? false,
        })),
      }
      : {}),
    ...(route.requestBody
      ? {
        requestBody: {
          required: true,
          description: route.requestBody.description,
          content: Object.fromEntries(
            Object.entries(route.requestBody.content).map(([type, schema]) => [type, { schema }]),
          ),
        },
      }
      : {}),
    responses: Object.fromEntries(
      Object.keys(responses).map(Number).sort((a, b) => a - b).map((status) => {
        const doc = responses[status];
        return [String(status), {
          description: doc.description,
          ...(doc.headers
            ? { headers: Object.fromEntries(Object.entries(doc.headers).map(([n, h]) => [n, { ...h }])) }
            : {}),
          ...(doc.content
            ? {
              content: Object.fromEntries(
                Object.entries(doc.content).map(([type, schema]) => [type, { schema }]),
              ),
            }
            : {}),
        }];
      }),
    ),
  };
}

/** The OpenAPI document of a route table. */
export function openApiDocument(routes: readonly Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method] = operation(route);
  return {
    openapi: "3.1.0",
    info: {
      title: SERVICE_NAME,
      version: SERVICE_VERSION,
      description: "Reactive model service REST API. Errors are RFC 7807 problem documents " +
        "(application/problem+json); rollback, schema, version-conflict and spec-validation errors " +
        'carry their documented bodies verbatim. Every 401 is {"error": message} (application/json).',
    },
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "the shared key svc.api.key" },
      },
      schemas: COMPONENT_SCHEMAS,
    },
  };
}
