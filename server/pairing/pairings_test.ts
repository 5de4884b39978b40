import assert from "node:assert/strict";
import { MOVED_PER_SESSION, Pairings } from "./pairings.ts";

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

/** A session approved and its agent's token collected, on `clock` (milliseconds), tabs idle after 90 s. */
function pairedSession(clock: { now: number }) {
  const pairings = new Pairings({ now: () => clock.now, tabIdleSec: 90 });
  const first = pairings.start();
  const approved = pairings.approve(first.userCode);
  const agent = pairings.token(first.pairCode, first.deviceSecret);
  if (approved.status !== "approved" || agent.status !== "approved") throw new Error("not approved");
  return { pairings, approved, agent, namespaceId: approved.namespaceId };
}

Deno.test("rejoin: only once no tab held the session; a new browser token, the old one revoked, one link", () => {
  const clock = { now: 0 };
  const { pairings, approved, agent, namespaceId } = pairedSession(clock);

  clock.now += 89_000;
  assert.equal(pairings.rejoin(namespaceId, agent.sessionToken), undefined, "the tab polled 89 s ago");
  assert.ok(pairings.session(approved.sessionToken), "the tab's poll");
  clock.now += 90_000;
  const stale = pairings.rejoin(namespaceId, agent.sessionToken)!;
  const link = pairings.rejoin(namespaceId, agent.sessionToken)!;
  assert.deepEqual(pairings.approve(stale.userCode), { status: "gone", reason: "expired" }, "superseded");
  assert.ok(pairings.session(approved.sessionToken), "a refused link revokes nothing");

  const rejoined = pairings.approve(link.userCode);
  if (rejoined.status !== "approved") throw new Error("not approved");
  assert.equal(rejoined.namespaceId, namespaceId, "the same namespace: its models come back");
  assert.equal(pairings.session(approved.sessionToken), undefined, "the old tab's token is revoked");
  assert.deepEqual(pairings.session(rejoined.sessionToken), { namespaceId, party: "browser" });
  assert.deepEqual(pairings.approve(link.userCode), { status: "gone", reason: "used" }, "single-use");
  assert.deepEqual(pairings.token(link.pairCode, link.deviceSecret), agent, "the agent's own token again");
  assert.deepEqual(
    pairings.session(agent.sessionToken),
    { namespaceId, party: "agent" },
    "the agent's stays",
  );
  assert.equal(pairings.rejoin(namespaceId, agent.sessionToken), undefined, "the new tab holds it");
  assert.deepEqual(pairings.list()[0].parties, ["agent", "browser"]);
});

Deno.test("rejoin: a session remembers the newest replaced tabs only, and forgets them when it ends", () => {
  const clock = { now: 0 };
  const { pairings, approved, agent, namespaceId } = pairedSession(clock);
  /** The browser tokens, oldest first: each rejoin (its tab closed 90 s) replaces the last one. */
  const tabs = [approved.sessionToken];
  for (let rejoins = 0; rejoins < MOVED_PER_SESSION + 3; rejoins++) {
    clock.now += 91_000;
    const rejoined = pairings.approve(pairings.rejoin(namespaceId, agent.sessionToken)!.userCode);
    if (rejoined.status !== "approved") throw new Error("not approved");
    tabs.push(rejoined.sessionToken);
  }
  const replaced = tabs.slice(0, -1);
  assert.deepEqual(
    replaced.map((token) => pairings.moved(token)),
    replaced.map((_, i) => i >= replaced.length - MOVED_PER_SESSION),
    "the newest replaced tabs are told the session moved; older ones that it ended",
  );
  assert.equal(pairings.moved(tabs.at(-1)!), false, "the tab holding the session");

  pairings.end(namespaceId);
  assert.deepEqual(tabs.map((token) => pairings.moved(token)), tabs.map(() => false));
});

Deno.test("rejoin: a replaced tab's session id with another secret is not told the session moved", () => {
  const clock = { now: 91_000 };
  const { pairings, approved, agent, namespaceId } = pairedSession(clock);
  clock.now += 91_000;
  pairings.approve(pairings.rejoin(namespaceId, agent.sessionToken)!.userCode);
  assert.equal(pairings.moved(approved.sessionToken), true, "the replaced tab's own token");
  const [id] = approved.sessionToken.split(".");
  assert.equal(pairings.moved(`${id}.${"A".repeat(22)}`), false, "its id with a guessed secret");
  assert.equal(pairings.moved(`${id}.`), false, "its id alone");
});
