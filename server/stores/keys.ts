/**
 * The `svc.storage.*` keys (read by `selectStorage` in mod.ts), kept apart so
 * the configuration check can list them without loading the stores.
 *
 * @module
 */

/** Every key `selectStorage` reads. */
export const STORAGE_KEYS: readonly string[] = [
  "svc.storage.type",
  "svc.storage.spec-type",
  "svc.storage.state-type",
  "svc.storage.audit-type",
  "svc.storage.blob-type",
  "svc.blob-store",
  "svc.storage.compaction-threshold",
  "svc.persistence-dir",
  "svc.blob-store-path",
  "svc.storage.postgres.url",
  "svc.storage.jdbc.pool-size",
  "svc.storage.postgres.job-lease-ms",
];
