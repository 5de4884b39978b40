/**
 * The link topology check (decisions/composition.md), on every create and
 * evolve: every link's target must be registered somewhere unless
 * `svc.composition.lazy-binding` is on, and every link edge on a cycle of
 * links needs both `statusPath` and `dedupeKey` (otherwise two models could
 * write each other forever).
 *
 * @module
 */
import type { Finding } from "../errors.ts";
import { isObject } from "../json/value.ts";
import type { ModelSpec } from "../model/types.ts";
import { parseCoordinate } from "./coordinate.ts";

/** One link between models. */
export interface LinkEdge {
  from: string;
  /** The target's identity. */
  to: string;
  ref: string;
  effectId: string;
  index: number;
  kind: "read" | "write";
  statusPath: string | null;
  /** Both `statusPath` and `dedupeKey` are set. */
  guarded: boolean;
}

/** The links a spec declares. */
export function linkEdges(spec: ModelSpec): LinkEdge[] {
  const effects = Array.isArray(spec.effects) ? spec.effects : [];
  return effects.flatMap((effect, index) => {
    const target = (effect as Record<string, unknown>).target;
    if (!isObject(target) || typeof target.ref !== "string") return [];
    const to = parseCoordinate(target.ref)?.identity ?? target.ref;
    const statusPath = typeof effect.statusPath === "string" ? effect.statusPath : null;
    return [{
      from: spec.id,
      to,
      ref: target.ref,
      effectId: effect.id,
      index,
      kind: typeof target.path === "string" ? "write" as const : "read" as const,
      statusPath,
      guarded: statusPath !== null && typeof effect.dedupeKey === "string",
    }];
  });
}

/** The models `from` reaches along `next` (itself only through a cycle). */
function reachable(from: string, next: ReadonlyMap<string, string[]>): Set<string> {
  const seen = new Set<string>();
  const stack = [...next.get(from) ?? []];
  while (stack.length) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    stack.push(...next.get(node) ?? []);
  }
  return seen;
}

/**
 * The links on a cycle through `root`: those between models of its strongly
 * connected component (each reaches `root` and is reached from it). Cycles
 * among other models are theirs, not the new spec's to answer for.
 */
function cyclesThrough(edges: readonly LinkEdge[], root: string): LinkEdge[] {
  const forward = new Map<string, string[]>();
  const backward = new Map<string, string[]>();
  for (const e of edges) {
    forward.set(e.from, [...forward.get(e.from) ?? [], e.to]);
    backward.set(e.to, [...backward.get(e.to) ?? [], e.from]);
  }
  const reached = reachable(root, forward);
  const reaching = reachable(root, backward);
  const component = new Set([root, ...[...reached].filter((id) => reaching.has(id))]);
  return edges.filter((e) => component.has(e.from) && component.has(e.to));
}

/**
 * The topology findings of `spec` among the running `models` (its own
 * previous version excluded). `unresolved(ref)` says why no repository holds
 * the target (a repository that did not answer named), null when one does.
 */
export async function checkTopology(
  spec: ModelSpec,
  models: readonly ModelSpec[],
  unresolved: (ref: string) => Promise<string | null>,
  lazyBinding: boolean,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const own = linkEdges(spec);
  if (!lazyBinding) {
    for (const edge of own) {
      const why = edge.to === spec.id ? null : await unresolved(edge.ref);
      if (why === null) continue;
      findings.push({
        location: `effects[${edge.index}].target.ref`,
        message: `UnresolvedLinkTarget: ${why} (svc.composition.lazy-binding is off)`,
      });
    }
  }
  const all = [...own, ...models.filter((m) => m.id !== spec.id).flatMap(linkEdges)];
  for (const edge of cyclesThrough(all, spec.id)) {
    if (edge.guarded) continue;
    findings.push({
      location: edge.from === spec.id ? `effects[${edge.index}]` : "effects",
      message:
        `UnguardedCycle: the link '${edge.effectId}' of '${edge.from}' to '${edge.to}' is on a cycle of ` +
        "links and needs both statusPath and dedupeKey",
    });
  }
  return findings;
}
