/**
 * Operational routes: health and info (open), metrics as JSON and in the
 * Prometheus text format, and the generated OpenAPI document.
 *
 * @module
 */
import { badRequest, notFound } from "../../engine/errors.ts";
import { MAX_QUOTED_WORD, quoted } from "../../engine/quoted.ts";
import { SERVICE_NAME, SERVICE_VERSION } from "../../engine/version.ts";
import { ref } from "./schemas.ts";
import { jsonResponse, problem, type Route } from "./route.ts";

/** Parses repeated `tag=name:value` filters. */
function tagFilter(tags: string[]): Record<string, string> {
  const filter: Record<string, string> = {};
  for (const tag of tags) {
    const colon = tag.indexOf(":");
    if (colon <= 0) {
      throw badRequest(
        `Invalid query parameter 'tag': expected name:value, got '${quoted(tag, MAX_QUOTED_WORD)}'`,
      );
    }
    filter[tag.slice(0, colon)] = tag.slice(colon + 1);
  }
  return filter;
}

/** Operational routes. */
export const ACTUATOR_ROUTES: Route[] = [
  {
    method: "get",
    path: "/actuator/health",
    operationId: "health",
    summary: "Health; DOWN (503) with the reason while the storage refuses requests; never needs the key",
    tag: "actuator",
    open: true,
    responses: {
      200: jsonResponse("up", ref("Health")),
      503: jsonResponse("down: a full disk, a database out of reach", ref("Health")),
    },
    handle: (c, { storageTrouble }) => {
      const reason = storageTrouble();
      if (reason === null) return c.json({ status: "UP" });
      // Spring Boot's shape: a monitor or load balancer sees the instance DOWN, and why.
      return c.json(
        { status: "DOWN", components: { storage: { status: "DOWN", details: { reason } } } },
        503,
      );
    },
  },
  {
    method: "get",
    path: "/actuator/info",
    operationId: "info",
    summary: "Service name and version; never needs the key",
    tag: "actuator",
    open: true,
    responses: { 200: jsonResponse("info", ref("Info")) },
    handle: (c) => c.json({ app: { name: SERVICE_NAME, version: SERVICE_VERSION } }),
  },
  {
    method: "get",
    path: "/actuator/metrics",
    operationId: "metricNames",
    summary: "Names of the available metrics",
    tag: "actuator",
    responses: { 200: jsonResponse("names", ref("MetricNames")) },
    handle: (c, { metrics }) => c.json({ names: metrics.registry.names() }),
  },
  {
    method: "get",
    path: "/actuator/metrics/{name}",
    operationId: "metric",
    summary: "One metric; `tag=name:value` (repeatable) narrows to matching series",
    tag: "actuator",
    parameters: [
      { name: "name", in: "path", required: true, description: "metric name", schema: { type: "string" } },
      {
        name: "tag",
        in: "query",
        description: "name:value filter, repeatable",
        schema: { type: "array", items: { type: "string" } },
      },
    ],
    responses: {
      200: jsonResponse("the metric", ref("Metric")),
      400: problem("malformed tag filter"),
      404: problem("unknown metric"),
    },
    handle: (c, { metrics }) => {
      const name = c.req.param("name") ?? "";
      const view = metrics.registry.view(name, tagFilter(c.req.queries("tag") ?? []));
      if (!view) throw notFound(`Metric '${name}' not found`);
      return c.json(view);
    },
  },
  {
    method: "get",
    path: "/actuator/prometheus",
    operationId: "prometheus",
    summary: "Every metric in the Prometheus text format",
    tag: "actuator",
    responses: { 200: { description: "exposition", content: { "text/plain": { type: "string" } } } },
    handle: (c, { metrics }) =>
      c.body(metrics.registry.prometheus(), 200, {
        "content-type": "text/plain; version=0.0.4; charset=utf-8",
      }),
  },
];
