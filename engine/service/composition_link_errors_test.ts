/**
 * A link's call that a configured repository refuses (a 429, a 422) names
 * that repository, as a failed lookup does; without it, `target_busy: <the
 * server's detail>` read as this service's own queue being full.
 */
import assert from "node:assert/strict";
import { DEFAULT_CONFIG } from "../config.ts";
import { NoAnswerError, ServiceError } from "../errors.ts";
import { GLOBAL_SCHEDULER, webPlatform } from "../ports.ts";
import type { Repository } from "../composition/repository.ts";
import { Composition } from "./composition.ts";

/** A composition whose only configured repository holds `fx` and fails every link call with `failure`. */
function composition(failure: Error): Composition {
  const hub: Repository = {
    id: "hub",
    repoClass: "web",
    fetch: (identity) => Promise.resolve(identity === "fx" ? { id: "fx", schema: {} } : null),
    write: () => Promise.reject(failure),
    read: () => Promise.reject(failure),
  };
  return new Composition({
    config: DEFAULT_CONFIG,
    hasher: webPlatform().hasher,
    scheduler: GLOBAL_SCHEDULER,
    repositories: [hub],
    localSpec: () => null,
    localIds: () => [],
    mutate: () => Promise.reject(new Error("no local models")),
    state: () => Promise.reject(new Error("no local models")),
    subscribe: () => () => {},
    refreshWatch: () => Promise.resolve(),
  });
}

const signal = new AbortController().signal;

Deno.test("a link's call a repository refuses names the repository and its status, as a lookup does", async () => {
  const busy = composition(new ServiceError("too_many", "queue full"));
  await assert.rejects(busy.linkTargets().write("fx", "$.v", 1, signal), {
    message: "target_busy: Repository 'hub' failed to write 'fx' (it answered 429): queue full",
  });
  await assert.rejects(busy.linkTargets().read("fx", "$.v", signal), {
    message: "target_busy: Repository 'hub' failed to read 'fx' (it answered 429): queue full",
  });
  const rejected = composition(new ServiceError("schema_violation", "Schema violation"));
  await assert.rejects(rejected.linkTargets().write("fx", "$.v", 1, signal), {
    message: "target_rejected: Repository 'hub' failed to write 'fx' (it answered 422): Schema violation",
  });
  // No answer says so itself (it answered nothing); a message naming the repository already is kept.
  const silent = composition(new NoAnswerError("unavailable", "The server at x did not answer within 5 ms"));
  await assert.rejects(silent.linkTargets().read("fx", "$.v", signal), {
    message: "transport_error: The server at x did not answer within 5 ms",
  });
  const refused = composition(new ServiceError("bad_gateway", "Repository 'hub' refused our credential"));
  await assert.rejects(refused.linkTargets().read("fx", "$.v", signal), {
    message: "transport_error: Repository 'hub' refused our credential",
  });
});
