import assert from "node:assert/strict";
import { Pairings } from "./pairings.ts";

Deno.test("end: both parties' tokens stop working, an uncollected approval goes too, other sessions stay", () => {
  const pairings = new Pairings();
  const first = pairings.start();
  const approved = pairings.approve(first.userCode);
  assert.equal(approved.status, "approved");
  const other = pairings.start();
  const kept = pairings.approve(other.userCode);
  assert.equal(kept.status, "approved");
  if (approved.status !== "approved" || kept.status !== "approved") return;

  // The agent has not collected its token yet when the person ends the session.
  assert.equal(pairings.end(approved.namespaceId), 2, "the browser's token and the agent's");
  assert.equal(pairings.session(approved.sessionToken), undefined);
  assert.deepEqual(pairings.token(first.pairCode, first.deviceSecret), { status: "gone", reason: "used" });
  assert.equal(pairings.end(approved.namespaceId), 0, "ending again changes nothing");

  assert.deepEqual(pairings.session(kept.sessionToken), { namespaceId: kept.namespaceId, party: "browser" });
  const collected = pairings.token(other.pairCode, other.deviceSecret);
  assert.equal(collected.status, "approved");
});
