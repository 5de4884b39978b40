/**
 * The PostgreSQL schema, created and migrated at startup. Migrations run in
 * order inside one transaction under an advisory lock, so instances starting
 * together apply each exactly once; `svc_schema` records the version reached.
 * A database newer than this build (a version it does not know) refuses to start.
 *
 * JSON is kept as text, exactly as written (jsonb would reorder keys and
 * normalise numbers).
 *
 * @module
 */

/** Each migration, in order; the schema version is the count applied. Append only. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE SEQUENCE svc_rev;
  -- One row per model. rev changes with every write to the model (the commit guard);
  -- gen changes when its state is replaced (create, evolve, restore).
  CREATE TABLE svc_models (
    id text PRIMARY KEY,
    rev bigint NOT NULL,
    gen bigint NOT NULL,
    spec text NOT NULL,
    base text NOT NULL,
    base_at bigint,
    log_start bigint NOT NULL,
    next_log bigint NOT NULL,
    audit_seq bigint,
    audit_hash text
  );
  -- Commits after the base, replayed at load; folded into the base every compaction-threshold entries.
  CREATE TABLE svc_log (
    model_id text NOT NULL REFERENCES svc_models (id) ON DELETE CASCADE,
    seq bigint NOT NULL,
    entry text NOT NULL,
    PRIMARY KEY (model_id, seq)
  );
  -- The hash-chained audit trail, never compacted; the key refuses a forked chain.
  CREATE TABLE svc_audit (
    model_id text NOT NULL REFERENCES svc_models (id) ON DELETE CASCADE,
    sequence bigint NOT NULL,
    at bigint NOT NULL,
    record text NOT NULL,
    PRIMARY KEY (model_id, sequence)
  );
  -- The effect outbox: the process holding a job runs it until lease_until (database clock, epoch ms).
  CREATE TABLE svc_jobs (
    model_id text NOT NULL REFERENCES svc_models (id) ON DELETE CASCADE,
    id text NOT NULL,
    job text NOT NULL,
    due_at bigint NOT NULL,
    owner text,
    lease_until bigint,
    PRIMARY KEY (model_id, id)
  );
  CREATE INDEX svc_jobs_due ON svc_jobs (due_at);
  -- States that could not be reconstructed at a load, kept for an operator (outlive the model).
  CREATE TABLE svc_recovery (
    seq bigserial PRIMARY KEY,
    model_id text NOT NULL,
    detected_at text NOT NULL,
    reason text NOT NULL,
    log_entries integer NOT NULL,
    record text NOT NULL
  );
  CREATE TABLE svc_blobs (
    id text PRIMARY KEY,
    media_type text NOT NULL,
    size bigint NOT NULL,
    bytes bytea NOT NULL
  );
  `,
  // 2: a log row names the audit record its commit wrote, which the load compares it with (rows written
  // before, or while the trail was kept elsewhere, name none: nothing to compare).
  `ALTER TABLE svc_log ADD COLUMN audit_seq bigint;`,
];
