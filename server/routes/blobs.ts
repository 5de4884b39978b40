/**
 * Blob routes: multipart upload, streaming download (directly or through a
 * model that references the blob), and garbage collection of orphans.
 *
 * @module
 */
import type { Context } from "hono";
import { badRequest, ServiceError, tooLarge } from "../../engine/errors.ts";
import type { BlobContent } from "../../engine/service/api.ts";
import { collectBlobGarbage } from "../blob_gc.ts";
import { ref } from "./schemas.ts";
import {
  ID_PARAM,
  jsonResponse,
  modelId,
  type ParamDoc,
  problem,
  type ResponseDoc,
  type Route,
} from "./route.ts";

const BLOB_PARAM: ParamDoc = {
  name: "blobId",
  in: "path",
  required: true,
  description: "SHA-256 hex of the content",
  schema: { type: "string" },
};

const DOWNLOAD: ResponseDoc = {
  description: "the bytes, with the stored media type as Content-Type",
  content: { "application/octet-stream": { type: "string", contentMediaType: "application/octet-stream" } },
};

function download(blob: BlobContent): Response {
  return new Response(blob.bytes as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: { "content-type": blob.mediaType, "content-length": String(blob.bytes.byteLength) },
  });
}

async function uploadedFile(c: Context): Promise<{ file: File; mediaType?: string }> {
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    throw badRequest("Expected a multipart/form-data body with a 'file' part");
  }
  const file = form.get("file");
  if (!(file instanceof File)) throw badRequest("Missing required multipart part: 'file'");
  const mediaType = form.get("mediaType");
  return {
    file,
    mediaType: typeof mediaType === "string" && mediaType.trim() ? mediaType.trim() : undefined,
  };
}

/** Blob routes. */
export const BLOB_ROUTES: Route[] = [
  {
    method: "post",
    path: "/blobs",
    operationId: "uploadBlob",
    summary: "Store binary content (content-addressed); returns a BlobRef",
    tag: "blobs",
    requestBody: {
      description: "field `file`, optional `mediaType`",
      content: { "multipart/form-data": ref("BlobUpload") },
    },
    responses: {
      201: {
        ...jsonResponse("stored", ref("BlobRef")),
        headers: { Location: { description: "/blobs/{blobId}", schema: { type: "string" } } },
      },
      400: problem("not multipart, or no `file` part"),
      413: problem("over svc.multipart caps, svc.blob.max-bytes or the total blob budget"),
    },
    handle: async (c, { service, config }) => {
      const { file, mediaType } = await uploadedFile(c);
      const cap = config.bodyLimits.multipartFileBytes;
      if (file.size > cap) {
        throw tooLarge(`File of ${file.size} bytes exceeds svc.multipart.max-file-size (${cap})`);
      }
      const blobRef = await service.uploadBlob(
        new Uint8Array(await file.arrayBuffer()),
        mediaType ?? (file.type || undefined),
      );
      return c.json(blobRef, 201, { Location: `/blobs/${blobRef.$blobId}` });
    },
  },
  {
    method: "get",
    path: "/blobs/{blobId}",
    operationId: "getBlob",
    summary: "Stream a blob",
    tag: "blobs",
    parameters: [BLOB_PARAM],
    responses: { 200: DOWNLOAD, 404: problem("blob absent") },
    handle: async (c, { service }) => download(await service.getBlob(c.req.param("blobId") ?? "")),
  },
  {
    method: "get",
    path: "/models/{id}/blobs/{blobId}",
    operationId: "getModelBlob",
    summary: "Stream a blob the model's current state references",
    tag: "blobs",
    parameters: [ID_PARAM, BLOB_PARAM],
    responses: { 200: DOWNLOAD, 404: problem("unknown model, blob absent or not referenced by the model") },
    handle: async (c, { service }) =>
      download(await service.getModelBlob(modelId(c), c.req.param("blobId") ?? "")),
  },
  {
    method: "post",
    path: "/admin/blobs/gc",
    operationId: "collectBlobGarbage",
    summary: "List (dry run) or delete blobs no current state or retained history references",
    tag: "admin",
    parameters: [{
      name: "apply",
      in: "query",
      description: "true deletes the orphans (needs a configured API key)",
      schema: { type: "boolean", default: false },
    }],
    responses: {
      200: jsonResponse("orphans found (and deleted when applied)", ref("BlobGcReport")),
      400: problem("apply is not true or false"),
      403: problem("apply=true in open mode"),
    },
    handle: async (c, { service, config }) => {
      const raw = c.req.query("apply")?.trim().toLowerCase() ?? "false";
      if (raw !== "true" && raw !== "false") {
        throw badRequest("Query parameter 'apply' must be true or false");
      }
      const apply = raw === "true";
      if (apply && config.apiKey === null) {
        throw new ServiceError(
          "forbidden",
          "Blob GC with apply=true needs a configured API key (svc.api.key)",
        );
      }
      return c.json(await collectBlobGarbage(service, apply));
    },
  },
];
