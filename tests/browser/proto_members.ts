/**
 * A short script over members named `__proto__` (which JSON.parse makes own
 * members and documents may hold), run through an engine module handed in by
 * the caller: in Deno the engine's source, in Chromium the esbuild bundle. A
 * browser's `Object.prototype.__proto__` accessor (Deno has none) turns a plain
 * `object["__proto__"] = value` into a prototype change, so the two results
 * differ wherever the engine builds a JSON object that way.
 *
 * @module
 */
import type * as Engine from "../../browser/mod.ts";

/** What the script saw, as plain data. */
export interface ProtoMembersReport {
  /** The model's state as JSON text (member order included). */
  state: string;
  /** `get_field $.o.x`: the error message when absent (it must be: `x` belongs to the member, not to `o`). */
  field: string;
  /** The audit records' hashes, oldest first. */
  hashes: string[];
  /** Whether the audit chain verifies. */
  verified: boolean;
}

/**
 * On a fresh in-memory service with a fixed clock (so both runtimes record the
 * same instants): creates a model, writes `$.o.__proto__` and a `$.p` holding a
 * `__proto__` member, and reads back the state, `$.o.x`, the audit hashes and
 * the chain's verification.
 */
export async function runProtoMembers(engine: typeof Engine): Promise<ProtoMembersReport> {
  const service = await engine.ModelService.open({
    platform: { ...engine.webPlatform(), clock: { now: () => Date.UTC(2026, 0, 1) } },
  });
  try {
    const { id } = await service.createModel({
      id: "proto-members",
      schema: { type: "object", properties: { o: { type: "object" }, p: { type: "object" } } },
      derivations: [{ path: "$.copy", expr: "p" }],
    });
    await service.mutate(id, JSON.parse('{"$.o.__proto__": {"x": 1}}'));
    await service.mutate(id, JSON.parse('{"$.p": {"__proto__": {"y": 2}, "z": 3}}'));
    return {
      state: JSON.stringify(await service.getState(id)),
      field: await service.getField(id, "$.o.x").then(JSON.stringify, (err: Error) => err.message),
      hashes: (await service.getAudit(id)).map((record) => record.hash),
      verified: (await service.verifyAudit(id)).valid,
    };
  } finally {
    await service.close();
  }
}
