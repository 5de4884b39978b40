import assert from "node:assert/strict";
import { PairingHost } from "./host.ts";
import { SessionBlobs } from "./session_blobs.ts";

Deno.test("a namespace knows a blob by its first upload's media type; others do not know it", () => {
  const blobs = new SessionBlobs();
  assert.equal(blobs.record("pair-a", "b1", "text/plain"), "text/plain");
  assert.equal(blobs.record("pair-a", "b1", "image/png"), "text/plain");
  assert.equal(blobs.record("pair-b", "b1", "image/png"), "image/png");
  assert.equal(blobs.mediaType("pair-a", "b1"), "text/plain");
  assert.equal(blobs.mediaType("pair-a", "b2"), undefined);
  assert.equal(blobs.mediaType("pair-c", "b1"), undefined);
  blobs.forget("pair-a");
  assert.equal(blobs.mediaType("pair-a", "b1"), undefined);
  assert.equal(blobs.mediaType("pair-b", "b1"), "image/png");
});

Deno.test("a session's uploads are forgotten when it ends", () => {
  const host = new PairingHost();
  const { userCode } = host.pairings.start();
  const approved = host.pairings.approve(userCode);
  assert.equal(approved.status, "approved");
  const { namespaceId } = approved as { namespaceId: string };
  host.blobs.record(namespaceId, "b1", "text/plain");
  host.pairings.end(namespaceId);
  assert.equal(host.blobs.mediaType(namespaceId, "b1"), undefined);
});
