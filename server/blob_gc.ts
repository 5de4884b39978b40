/**
 * Blob garbage collection: a blob is an orphan when no model's current state
 * or retained history references it. Only enumerable blob stores can be swept.
 *
 * The store is listed before the mark set is taken, so a blob uploaded during
 * the run is never in the sweep list, and one referenced before the mark is
 * kept. A blob uploaded earlier but referenced only after the mark is swept:
 * uploads that are not yet referenced are orphans by definition.
 *
 * @module
 */
import type { ModelService } from "../engine/service/service.ts";

/** What a collection found (and deleted, when applied). */
export interface BlobGcReport {
  /** False when the blob store cannot be enumerated. */
  supported: boolean;
  /** True when the orphans were deleted. */
  applied: boolean;
  /** Blobs referenced by current state or retained history. */
  referenced: number;
  orphans: { blobId: string; bytes: number }[];
  orphanBytes: number;
}

/** Lists orphan blobs and, when `apply` is true, deletes them. */
export async function collectBlobGarbage(service: ModelService, apply: boolean): Promise<BlobGcReport> {
  if (!service.blobs.enumerable) {
    return { supported: false, applied: false, referenced: 0, orphans: [], orphanBytes: 0 };
  }
  const stored = await service.blobs.list();
  const referenced = service.referencedBlobIds();
  const orphans = stored.filter((b) => !referenced.has(b.blobId)).sort((a, b) =>
    a.blobId.localeCompare(b.blobId)
  );
  if (apply) { for (const orphan of orphans) await service.blobs.delete(orphan.blobId); }
  return {
    supported: true,
    applied: apply,
    referenced: referenced.size,
    orphans,
    orphanBytes: orphans.reduce((sum, b) => sum + b.bytes, 0),
  };
}
