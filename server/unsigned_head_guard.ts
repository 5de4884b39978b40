/**
 * With `svc.audit.signing-key` set, a write's signature vouches for every
 * record before it (it signs a hash chained over them). A model whose stored
 * head is unsigned was last written before the key was set, or rewritten by
 * someone without the key; the store cannot tell which, so the next write
 * would launder a rewrite. This guard, around the service's store, refuses
 * such a write (409) until an operator has checked the trail and listed the
 * head's hash in `svc.audit.accept-unsigned-heads` (README "Signed chain heads").
 *
 * @module
 */
import { type AuditRecord, GENESIS_HASH } from "../engine/audit/chain.ts";
import { conflict } from "../engine/errors.ts";
import type { CommitRecord, ModelStore } from "../engine/service/ports.ts";

/**
 * `store` with its commits refused while the record they chain onto is an
 * unsigned head not in `accepted` (hashes); writes that are not signed (no key)
 * pass. Everything else goes to `store` as it is.
 */
export function guardUnsignedHeads(store: ModelStore, accepted: readonly string[]): ModelStore {
  // Heads known signed (or accepted), by model: one read of the stored head per model, not per write.
  const vouched = new Map<string, string>();

  async function check(modelId: string, audit: AuditRecord | null | undefined): Promise<void> {
    if (audit?.signature === undefined) return;
    const prev = audit.prevHash;
    if (prev === GENESIS_HASH || vouched.get(modelId) === prev) return;
    const head = await store.lastAudit(modelId);
    // A trail kept elsewhere (or none) gives no head to judge, nor does a head another process moved on
    // since (the store refuses the write as stale): the store decides.
    if (!head || head.hash !== prev) return;
    if (head.signature === undefined && !accepted.includes(prev)) {
      throw conflict(
        `Model '${modelId}': its audit chain head (sequence ${head.sequence}, hash ${prev}) is not signed, ` +
          "though svc.audit.signing-key is set, and this write's signature would vouch for it and every " +
          "record before it. It was written before the key was set, or the trail was rewritten without the " +
          "key. Verify the trail without the key (or against a head kept elsewhere), then list the hash in " +
          "svc.audit.accept-unsigned-heads (SVC_AUDIT_ACCEPT_UNSIGNED_HEADS) and restart.",
      );
    }
    vouched.set(modelId, prev);
  }

  const guarded: Pick<ModelStore, "commit" | "commitMany" | "save" | "delete"> = {
    async commit(modelId, entry, states, audit, jobs) {
      await check(modelId, audit);
      await store.commit(modelId, entry, states, audit, jobs);
      if (audit?.signature !== undefined) vouched.set(modelId, audit.hash);
    },
    async commitMany(modelId: string, commits: readonly CommitRecord[]) {
      // The batch chains onto the stored head from its first record.
      await check(modelId, commits[0]?.audit);
      await store.commitMany!(modelId, commits);
      const last = commits.at(-1)?.audit;
      if (last?.signature !== undefined) vouched.set(modelId, last.hash);
    },
    // A trail discarded (a deletion, a create over what was stored) takes its vouched head with it:
    // whatever is stored under the id later is judged afresh.
    async save(spec, state, options) {
      await store.save(spec, state, options);
      if (options?.created) vouched.delete(spec.id);
    },
    async delete(modelId) {
      await store.delete(modelId);
      vouched.delete(modelId);
    },
  };
  return new Proxy(store, {
    get(target, key) {
      if (
        typeof key === "string" && Object.hasOwn(guarded, key) && (key !== "commitMany" || target.commitMany)
      ) {
        return guarded[key as keyof typeof guarded];
      }
      const value = Reflect.get(target, key, target);
      // Bound to the store itself: its private fields are not the proxy's.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
