/**
 * Stored models that did not load because their stored spec fails a check
 * this version added: what the service keeps of them, the 409 every read of
 * one answers, and what an evolution repairing one needs of the old spec.
 *
 * @module
 */
import { describeFindings, type Finding, ServiceError } from "../errors.ts";
import type { Json } from "../json/value.ts";
import { parsePath, type Segment } from "../json/path.ts";
import type { ModelSpec } from "../model/types.ts";
import type { LoadedModel } from "./ports.ts";

/** A stored model that did not load: why, and what was stored (an evolution repairing it starts there). */
export interface UnloadedModel {
  findings: Finding[];
  stored: LoadedModel;
  /** It was loaded here until another process gave it this spec: subscribers heard it gone then. */
  gone?: boolean;
}

/** An unloaded model as listed: its id and the findings of its stored spec. */
export interface UnloadedSummary {
  id: string;
  errors: Finding[];
}

/**
 * The 409 of any operation on an unloaded model but the two that resolve it:
 * an evolution fixing the findings, or a deletion. The body names the
 * findings (`errors`, as a spec validation failure lists them).
 */
export function notLoaded(id: string, findings: Finding[]): ServiceError {
  const at = `/models/${encodeURIComponent(id)}`;
  const detail =
    `Model '${id}' is stored but not loaded: its stored spec no longer validates: ${
      describeFindings(findings)
    }. Repair it with an evolution that fixes these (POST ${at}/spec/evolve; GET ${at}/spec reads the stored ` +
    `spec), or discard its stored state and audit trail (DELETE ${at})`;
  return new ServiceError("conflict", detail, {
    error: "Model not loaded",
    detail,
    modelId: id,
    errors: findings as unknown as Json,
  });
}

/**
 * What an evolution carrying state forward needs of a spec that no longer
 * compiles: the spec and its derivations' targets (their stored values are
 * dropped and computed anew, as in any evolution).
 */
export function priorOf(spec: ModelSpec): { spec: ModelSpec; derivedTargets: { target: Segment[] }[] } {
  const derivedTargets = (spec.derivations ?? []).flatMap((d) => {
    const parsed = typeof d?.path === "string" ? parsePath(d.path) : null;
    return parsed?.ok ? [{ target: parsed.path }] : [];
  });
  return { spec, derivedTargets };
}
