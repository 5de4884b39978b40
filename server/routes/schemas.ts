/**
 * The OpenAPI document's named schemas: the operations' components (their
 * inputs, results and failure bodies, generated from engine/operations/) and
 * the few shapes only the server has (actuator answers, the multipart upload).
 *
 * @module
 */
import { componentSchemas, type JsonSchema } from "../../engine/operations/json_schema.ts";

export type { JsonSchema };

const str = (description?: string): JsonSchema =>
  description ? { type: "string", description } : { type: "string" };
const strings: JsonSchema = { type: "array", items: { type: "string" } };
const obj = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: "object",
  properties,
  ...(required.length ? { required } : {}),
});

/** Shapes of the server's own routes. */
const SERVER_SCHEMAS: Record<string, JsonSchema> = {
  BlobUpload: obj({
    file: { type: "string", contentMediaType: "application/octet-stream", description: "the content" },
    mediaType: str("overrides the file part's type"),
  }, ["file"]),
  Health: obj({ status: { enum: ["UP", "DOWN"] }, components: { type: "object" } }, ["status"]),
  Info: obj({ app: obj({ name: str(), version: str() }) }),
  MetricNames: obj({ names: strings }, ["names"]),
  Metric: obj({
    name: str(),
    description: str(),
    baseUnit: { type: ["string", "null"] },
    measurements: {
      type: "array",
      items: obj({ statistic: { enum: ["COUNT", "TOTAL_TIME", "MAX", "VALUE"] }, value: { type: "number" } }),
    },
    availableTags: { type: "array", items: obj({ tag: str(), values: strings }) },
  }),
};

/** Every named schema of the document's `components.schemas`. */
export const COMPONENT_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ...componentSchemas(),
  ...SERVER_SCHEMAS,
};

/** A `$ref` to a component schema; an unknown name is a programming error. */
export function ref(name: string): JsonSchema {
  if (!(name in COMPONENT_SCHEMAS)) throw new Error(`no component schema '${name}'`);
  return { $ref: `#/components/schemas/${name}` };
}
