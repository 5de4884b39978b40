/**
 * Composition operations: a branch's lineage, the quarantined effects and
 * their approval, promotion to a web repository, and the composition graph.
 *
 * @module
 */
import { z } from "zod";
import { UNKNOWN_MODEL } from "./models.ts";
import { apiOperation } from "./operation.ts";
import { lazySchema } from "./json_schema.ts";
import { BY_ID, MODEL_ID, SPEC_ARGUMENT, SPEC_INVALID_BODY } from "./schemas.ts";

const LINEAGE_ENTRY = lazySchema(() =>
  z.looseObject({
    ref: z.string(),
    version: z.string(),
    digest: z.string(),
    repo: z.string(),
    owner: z.string().nullable(),
  })
);
const PENDING_EFFECT = lazySchema(() =>
  z.looseObject({
    effectId: z.string(),
    executor: z.string(),
    origin: z.unknown(),
    definitionHash: z.string(),
    status: z.unknown(),
  })
);

/** `POST /models/flatten`: what the authoring tools check a branch as. */
export const flattenSpec = apiOperation({
  name: "flattenSpec",
  summary: "a candidate spec as creating it would compile it: a branch flattened over its template, a " +
    "library's `extends` inherited; nothing is registered",
  input: () => z.object({ spec: SPEC_ARGUMENT().describe("the candidate ModelSpec") }),
  output: () => z.looseObject({}).describe("the flattened ModelSpec"),
  run: (api, { spec }) => api.flattenSpec(spec),
  rest: {
    method: "post",
    path: "/models/flatten",
    tag: "composition",
    body: { member: "spec", description: "the candidate ModelSpec" },
    errors: {
      400: { description: "malformed JSON" },
      422: {
        description: "the template or the extended library cannot be resolved",
        body: SPEC_INVALID_BODY,
      },
    },
  },
  console: { command: "flatten-spec" },
});

/** `GET /models/{id}/lineage`. */
export const getLineage = apiOperation({
  name: "getLineage",
  summary: "the pinned ancestor chain of a branch, nearest first; [] for a model that is not one",
  input: BY_ID,
  output: () => z.array(LINEAGE_ENTRY()),
  run: (api, { id }) => api.getLineage(id),
  rest: { method: "get", path: "/models/{id}/lineage", tag: "composition", errors: { 404: UNKNOWN_MODEL } },
  console: { command: "get-lineage" },
  mcp: {
    tool: "get_lineage",
    title: "Read the lineage",
    description: "The pinned ancestor chain of a branch (a model created from a `template`), nearest " +
      "first: each ancestor's ref, version, digest, repo and owner. [] for a model that is not a branch.",
    kind: "read",
  },
});

/** `GET /models/{id}/effects/pending`. */
export const getPendingEffects = apiOperation({
  name: "getPendingEffects",
  summary: "inherited effects of another owner waiting for approval (svc.authz.inherited-effects=approve)",
  input: BY_ID,
  output: () => z.array(PENDING_EFFECT()),
  run: (api, { id }) => api.getPendingEffects(id),
  rest: {
    method: "get",
    path: "/models/{id}/effects/pending",
    tag: "composition",
    errors: { 404: UNKNOWN_MODEL },
  },
  console: { command: "get-pending-effects" },
  mcp: {
    tool: "get_pending_effects",
    title: "List quarantined effects",
    description: "The effects a branch inherited from another owner that wait for approval before they " +
      "run (svc.authz.inherited-effects=approve): each with effectId, executor, origin, definitionHash and " +
      "status. Approve one with approve_effect; [] when none waits.",
    kind: "read",
  },
});

/** `POST /models/{id}/effects/{effectId}/approve`. */
export const approveEffect = apiOperation({
  name: "approveEffect",
  summary: "approve a quarantined effect at its current definitionHash; it then fires if its trigger holds",
  input: () => z.object({ id: MODEL_ID(), effectId: z.string().describe("the id of the effect to approve") }),
  output: () =>
    z.looseObject({ effectId: z.string(), definitionHash: z.string(), approved: z.literal(true) }),
  run: (api, { id, effectId }) => api.approveEffect(id, effectId),
  rest: {
    method: "post",
    path: "/models/{id}/effects/{effectId}/approve",
    tag: "composition",
    errors: {
      404: { description: "unknown model or effect" },
      409: { description: "the effect is not waiting for approval" },
    },
  },
  console: { command: "approve-effect" },
  mcp: {
    tool: "approve_effect",
    title: "Approve a quarantined effect",
    description: "Approve a quarantined effect (pass the model id and the effectId get_pending_effects " +
      "lists) at its current definitionHash; it then fires whenever its trigger holds, until its " +
      "definition changes. Returns {effectId, definitionHash, approved: true}; an effect not waiting fails.",
    kind: "write",
    idempotent: true,
  },
});

/** `POST /models/{id}/promote`. */
export const promote = apiOperation({
  name: "promote",
  summary: "publish a model to a web repository of svc.composition.repositories; the model stays here",
  input: () => z.object({ id: MODEL_ID(), toRepo: z.string().describe("the id of a web repository") }),
  output: () => z.looseObject({ id: z.string(), promotedTo: z.string() }),
  run: (api, { id, toRepo }) => api.promote(id, toRepo),
  rest: {
    method: "post",
    path: "/models/{id}/promote",
    tag: "composition",
    body: { members: ["toRepo"], description: "{toRepo}" },
    errors: {
      400: { description: "toRepo missing or blank" },
      404: UNKNOWN_MODEL,
      405: { description: "the repository is local-class (demotion is unsupported)" },
      409: {
        description: "unknown repository, one that cannot publish, or a reference outside web repositories",
      },
    },
  },
  console: { command: "promote" },
  mcp: {
    tool: "promote_model",
    title: "Promote a model",
    description: "Publish a model to a web repository of svc.composition.repositories (pass its id as " +
      "toRepo); the model stays registered here. Returns {id, promotedTo}; a local-class or unknown " +
      "repository, or a model referring outside web repositories, fails.",
    kind: "write",
    idempotent: true,
  },
});

/** `GET /composition/graph`. */
export const getCompositionGraph = apiOperation({
  name: "getCompositionGraph",
  summary:
    "links and lineage among the models, each link with its last status; computed now, never authoritative",
  input: () => z.object({}),
  output: () =>
    z.looseObject({
      nodes: z.array(z.looseObject({})),
      linkEdges: z.array(z.looseObject({})),
      lineageEdges: z.array(z.looseObject({})),
    }),
  run: (api) => api.getCompositionGraph(),
  rest: { method: "get", path: "/composition/graph", tag: "composition", errors: {} },
  console: { command: "get-composition-graph" },
  mcp: {
    tool: "get_composition_graph",
    title: "Read the composition graph",
    description: "The links and lineage among all models, computed now (never authoritative): nodes " +
      "(ref), linkEdges (from, to, effectId, kind read or write, last status) and lineageEdges (branch, " +
      "template).",
    kind: "read",
  },
});
