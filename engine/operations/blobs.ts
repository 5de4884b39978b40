/**
 * Blob operations: upload (multipart over REST, base64 on the protocol
 * surfaces), download directly or through a model that references the blob,
 * and garbage collection of orphans.
 *
 * @module
 */
import { z } from "zod";
import { decodeBase64, encodeBase64 } from "./base64.ts";
import type { BlobContent } from "../service/api.ts";
import { apiOperation, localOperation } from "./operation.ts";
import { lazySchema } from "./json_schema.ts";
import { BLOB_CONTENT_BASE64, BLOB_GC_REPORT, BLOB_REF, MODEL_ID } from "./schemas.ts";

const BLOB_ID = lazySchema(() =>
  z.string().describe("the blob id ($blobId of a BlobRef: SHA-256 hex of the content)")
);
const MEDIA_TYPE = lazySchema(() => z.string().describe("media type (default application/octet-stream)"));

/** A blob as the protocol surfaces return it: its bytes in base64. */
function base64Blob(blobId: string, blob: BlobContent) {
  return { blobId, mediaType: blob.mediaType, data: encodeBase64(blob.bytes) };
}

const LARGE_BLOB_HINT =
  "the blob is too large to inline; read it from the server over REST (GET /blobs/{blobId})";

/** `POST /blobs`: multipart upload. */
export const uploadBlob = apiOperation({
  name: "uploadBlob",
  summary: "Store binary content (content-addressed); returns a BlobRef",
  input: () =>
    z.object({
      bytes: z.instanceof(Uint8Array) as z.ZodType<Uint8Array>,
      mediaType: MEDIA_TYPE().optional(),
    }),
  output: BLOB_REF,
  run: (api, { bytes, mediaType }) => api.uploadBlob(bytes, mediaType),
  rest: {
    method: "post",
    path: "/blobs",
    tag: "blobs",
    body: {
      multipart: { fileMember: "bytes", typeMember: "mediaType" },
      description: "field `file`, optional `mediaType`",
    },
    status: 201,
    location: (ref) => `/blobs/${ref.$blobId}`,
    errors: {
      400: { description: "not multipart, or no `file` part" },
      413: { description: "over svc.multipart caps, svc.blob.max-bytes or the total blob budget" },
    },
  },
});

/** Upload from base64 (console `upload-blob`, MCP `upload_blob`). */
export const uploadBlobData = localOperation({
  name: "uploadBlobData",
  summary: "store binary data (base64); returns a BlobRef",
  input: () => z.object({ data: z.string().describe("base64 content"), mediaType: MEDIA_TYPE().optional() }),
  output: BLOB_REF,
  run: ({ invoke }, { data, mediaType }) => invoke(uploadBlob, { bytes: decodeBase64(data), mediaType }),
  console: { command: "upload-blob" },
  mcp: {
    tool: "upload_blob",
    title: "Upload a blob",
    description: "Store binary content (base64); returns a BlobRef to write into state.",
    kind: "write",
    idempotent: true,
  },
});

/** `GET /blobs/{blobId}`. */
export const getBlob = apiOperation({
  name: "getBlob",
  summary: "read a blob: {blobId, mediaType, data (base64)}",
  input: () => z.object({ blobId: BLOB_ID() }),
  run: (api, { blobId }) => api.getBlob(blobId),
  rest: {
    method: "get",
    path: "/blobs/{blobId}",
    summary: "Stream a blob",
    tag: "blobs",
    response: "binary",
    errors: { 404: { description: "blob absent" } },
  },
  console: { command: "get-blob", present: (blob, { blobId }) => base64Blob(blobId, blob) },
});

/** `GET /models/{id}/blobs/{blobId}`. */
export const getModelBlob = apiOperation({
  name: "getModelBlob",
  summary: "read a blob the model's state references",
  input: () => z.object({ id: MODEL_ID(), blobId: BLOB_ID() }),
  run: (api, { id, blobId }) => api.getModelBlob(id, blobId),
  rest: {
    method: "get",
    path: "/models/{id}/blobs/{blobId}",
    summary: "Stream a blob the model's current state references",
    tag: "blobs",
    response: "binary",
    errors: { 404: { description: "unknown model, blob absent or not referenced by the model" } },
  },
  console: { command: "get-model-blob", present: (blob, { blobId }) => base64Blob(blobId, blob) },
});

/** A blob in base64, directly or through a model (MCP `download_blob`). */
export const downloadBlob = localOperation({
  name: "downloadBlob",
  summary: "Read a blob as base64; with modelId only if that model's state references it.",
  input: () =>
    z.object({ blobId: BLOB_ID(), modelId: MODEL_ID().describe("read through this model").optional() }),
  output: BLOB_CONTENT_BASE64,
  run: async ({ invoke }, { blobId, modelId }) =>
    base64Blob(
      blobId,
      modelId === undefined
        ? await invoke(getBlob, { blobId })
        : await invoke(getModelBlob, { id: modelId, blobId }),
    ),
  mcp: {
    tool: "download_blob",
    title: "Download a blob",
    kind: "read",
    largeResult: true,
    narrowingHint: LARGE_BLOB_HINT,
  },
});

/** `POST /admin/blobs/gc`. */
export const collectBlobGarbage = apiOperation({
  name: "collectBlobGarbage",
  summary: "List (dry run) or delete blobs no current state or retained history references",
  input: () =>
    z.object({
      apply: z.boolean().describe("true deletes the orphans (needs a configured API key on a server)")
        .default(
          false,
        ),
    }),
  output: BLOB_GC_REPORT,
  run: (api, { apply }) => api.collectBlobGarbage(apply),
  rest: {
    method: "post",
    path: "/admin/blobs/gc",
    tag: "admin",
    query: { apply: "apply" },
    errors: {
      400: { description: "apply is not true or false" },
      403: { description: "apply=true in open mode" },
      409: {
        description: "apply=true while a stored model that is not loaded has a state that cannot be read",
      },
    },
  },
  console: { command: "collect-blob-garbage" },
});
