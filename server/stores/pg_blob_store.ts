/**
 * Content-addressed blobs in PostgreSQL (`svc_blobs`: id, media type, size,
 * bytes), shared by every instance: an upload through one is readable through all.
 *
 * @module
 */
import type { BlobStore, StoredBlob } from "../../engine/service/ports.ts";
import type { PgDatabase } from "./pg_database.ts";

/** The PostgreSQL blob store. */
export class PgBlobStore implements BlobStore {
  readonly description: string;
  readonly enumerable = true;
  readonly #db: PgDatabase;

  constructor(db: PgDatabase) {
    this.#db = db.acquire();
    this.description = `postgres (${db.description})`;
  }

  async put(blobId: string, blob: StoredBlob): Promise<void> {
    await this.#db.sql`
      INSERT INTO svc_blobs (id, media_type, size, bytes)
      VALUES (${blobId}, ${blob.mediaType}, ${blob.bytes.byteLength}, ${blob.bytes})
      ON CONFLICT (id) DO NOTHING`;
  }

  async get(blobId: string): Promise<StoredBlob | null> {
    const [row] = await this.#db.sql`SELECT media_type, bytes FROM svc_blobs WHERE id = ${blobId}`;
    return row
      ? { bytes: new Uint8Array(row.bytes as Uint8Array), mediaType: row.media_type as string }
      : null;
  }

  async has(blobId: string): Promise<boolean> {
    return (await this.#db.sql`SELECT 1 FROM svc_blobs WHERE id = ${blobId}`).length > 0;
  }

  async delete(blobId: string): Promise<void> {
    await this.#db.sql`DELETE FROM svc_blobs WHERE id = ${blobId}`;
  }

  async list(): Promise<{ blobId: string; bytes: number }[]> {
    const rows = await this.#db.sql`SELECT id, size FROM svc_blobs ORDER BY id`;
    return rows.map((row) => ({ blobId: row.id as string, bytes: row.size as number }));
  }

  async totalBytes(): Promise<number> {
    const [row] = await this.#db.sql`SELECT coalesce(sum(size), 0)::bigint AS total FROM svc_blobs`;
    return row.total as number;
  }

  close(): Promise<void> {
    return this.#db.release();
  }
}
