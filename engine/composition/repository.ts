/**
 * Where templates, link targets and promotions are found: the implicit local
 * repository (this service's own models) followed by the configured ones
 * (`svc.composition.repositories`: another server's REST API over `http`, or a
 * child process speaking MCP over stdio). Each holds at most one version of a
 * model: its current one. Resolution (decisions/composition.md): a range pins
 * to the highest satisfying version from the first repository that lists
 * any; otherwise the first repository with a hit wins; a digest pin that the
 * holding repository's spec does not match is refused.
 *
 * @module
 */
import { conflict, ServiceError } from "../errors.ts";
import { canonicalJson } from "../json/canonical.ts";
import type { Json } from "../json/value.ts";
import type { ModelSpec } from "../model/types.ts";
import type { Hasher } from "../ports.ts";
import { notAReference } from "../model/model_spec_schema.ts";
import { type Coordinate, parseCoordinate, satisfies } from "./coordinate.ts";

/** `local` repositories hold working models; only `web` ones are promote targets. */
export type RepositoryClass = "local" | "web";

/** One repository of the chain. */
export interface Repository {
  id: string;
  repoClass: RepositoryClass;
  /**
   * The model `identity` as that repository holds it now; null when it has none. Rejects when the
   * repository does not answer: a miss all the same, which a final "not found" names with that reason.
   * Throws a `bad_gateway` ServiceError when it refuses us (our credential) or fails (a 5xx, a 429): not a miss.
   */
  fetch(identity: string): Promise<ModelSpec | null>;
  /** Stores a model there (promote); absent: the repository cannot publish. */
  publish?(spec: ModelSpec): Promise<void>;
  /** Write-link: mutates `identity` with `{[path]: value}`; resolves with its merged state. */
  write?(identity: string, path: string, value: Json, signal: AbortSignal): Promise<Json>;
  /** Read-link: the field at `path` of `identity`, null when absent. */
  read?(identity: string, path: string, signal: AbortSignal): Promise<Json>;
  /**
   * Calls `onChange` with the paths of every commit of `identity`; resolves with the stop function. Calls
   * `onProblem` with a message for the link's status (`feed interrupted: …`) when its feed is interrupted (it
   * reconnects) or, `final`, has ended (`feed ended: …`: refused, or not back).
   */
  watch?(
    identity: string,
    onChange: (paths: string[]) => void,
    onProblem?: (problem: string, final: boolean) => void,
  ): Promise<() => void>;
  /** Releases connections and child processes. */
  close?(): Promise<void>;
}

/** A resolved reference, pinned. */
export interface Resolved {
  spec: ModelSpec;
  ref: string;
  identity: string;
  version: string;
  /** `sha256:<hex>` of the spec's canonical JSON. */
  digest: string;
  repo: string;
  owner: string | null;
}

/** Why a reference did not resolve. */
export class ResolutionError extends Error {
  readonly code: "UnresolvedReference" | "DigestMismatch" | "InvalidReference";
  constructor(code: ResolutionError["code"], message: string) {
    super(message);
    this.name = "ResolutionError";
    this.code = code;
  }
}

/** A publication a repository refused (a duplicate id, an invalid spec): 409 with its reason. */
export function publicationRefused(repo: string, err: unknown): ServiceError {
  const reason = err instanceof Error ? err.message : String(err);
  return conflict(`Repository '${repo}' refused the model: ${reason}`);
}

/**
 * A repository's refusal of us or failure (a 502): it ends a resolution, where a miss goes on to the next
 * repository.
 */
export const refusedUs = (err: unknown): boolean => err instanceof ServiceError && err.kind === "bad_gateway";

/** The digest of a spec: `sha256:` + hex SHA-256 of its canonical JSON. */
export async function specDigest(spec: ModelSpec, hasher: Hasher): Promise<string> {
  return `sha256:${await hasher.sha256Hex(canonicalJson(spec as unknown as Json))}`;
}

/** Resolves `ref` through `chain`, in order. */
export async function resolveRef(
  ref: string,
  chain: readonly Repository[],
  hasher: Hasher,
): Promise<Resolved> {
  const coordinate = parseCoordinate(ref);
  if (!coordinate) {
    throw new ResolutionError("InvalidReference", notAReference(ref));
  }
  let mismatch: string | null = null;
  // Why the repositories that did not answer did not: a "not found" says so.
  let unanswered = "";
  // The versions held that the pin does not take (one a repository), a few named: "not found" says which exist.
  const held: string[] = [];
  for (const repo of chain) {
    // A repository that does not answer is a miss: the next one may hold the model.
    const spec = await repo.fetch(coordinate.identity).catch((err) => {
      if (refusedUs(err)) throw err;
      unanswered += `; ${(err as Error).message}`;
      return null;
    });
    if (!spec) continue;
    const version = typeof spec.version === "string" && spec.version ? spec.version : "1.0.0";
    const digest = await specDigest(spec, hasher);
    if (satisfies(coordinate.pin, version, digest)) {
      return resolved(ref, coordinate, spec, version, digest, repo.id);
    }
    if (coordinate.pin.kind === "digest") {
      mismatch ??= `${repo.id} holds ${coordinate.identity} with ${digest}`;
    } else held.push(`${version} in ${repo.id}`);
  }
  if (mismatch) {
    throw new ResolutionError("DigestMismatch", `'${ref}': the digest does not match (${mismatch})`);
  }
  throw new ResolutionError(
    "UnresolvedReference",
    `'${ref}' is not found in any repository (${chain.map((r) => r.id).join(", ")})${
      held.length ? `; held: ${held.slice(0, 3).join(", ")}${held.length > 3 ? ", …" : ""}` : ""
    }${unanswered}`,
  );
}

function resolved(
  ref: string,
  coordinate: Coordinate,
  spec: ModelSpec,
  version: string,
  digest: string,
  repo: string,
): Resolved {
  return { spec, ref, identity: coordinate.identity, version, digest, repo, owner: coordinate.namespace };
}
