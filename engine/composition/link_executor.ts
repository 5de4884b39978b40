/**
 * Links (decisions/composition.md "Links"): a server effect whose `target`
 * names another model instead of a URL. A write-link writes its `body` at the
 * target's `path`; the target's merged state is `$response`. A read-link reads
 * the target's field (null when absent) without changing it. Failures say
 * which: `target_rejected` (the target refused the write: schema or
 * rollback), `target_busy` (its queue is full), `target_unresolved` (no
 * repository holds it), `transport_error` (it could not be reached). Busy
 * targets and transport errors are retried under the effect's policy.
 *
 * @module
 */
import type { EffectExecutor, ExecutorOutcome } from "../effects/executor.ts";
import type { Json } from "../json/value.ts";

/** Why a link attempt failed. */
export type LinkFailure = "target_rejected" | "target_busy" | "target_unresolved" | "transport_error";

/** A failed link attempt. */
export class LinkError extends Error {
  readonly code: LinkFailure;
  constructor(code: LinkFailure, message: string) {
    super(`${code}: ${message}`);
    this.name = "LinkError";
    this.code = code;
  }
}

/** How links reach models: this service's own, or another repository's. */
export interface LinkTargets {
  /** Writes `value` at `path` of the model `ref` names; answers with its merged state. */
  write(ref: string, path: string, value: Json, signal: AbortSignal): Promise<Json>;
  /** The field at `path` of the model `ref` names; null when absent. */
  read(ref: string, path: string, signal: AbortSignal): Promise<Json>;
}

/** The executor of links. */
export function linkExecutor(targets: LinkTargets): EffectExecutor {
  return {
    kind: "link",
    async execute(job, { signal }): Promise<ExecutorOutcome> {
      if (job.work.type !== "link") return { ok: false, error: "not a link", retryable: false };
      const { ref, path, read, body } = job.work;
      try {
        const response = path !== null
          ? await targets.write(ref, path, body, signal)
          : await targets.read(ref, read!, signal);
        return { ok: true, response, status: null };
      } catch (err) {
        if (err instanceof LinkError) {
          return {
            ok: false,
            error: err.message,
            retryable: err.code === "target_busy" || err.code === "transport_error",
          };
        }
        return { ok: false, error: `transport_error: ${(err as Error).message}`, retryable: true };
      }
    },
  };
}
