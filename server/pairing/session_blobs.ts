/**
 * The blobs each pairing session uploaded, and the media type it gave each.
 *
 * Blobs are content-addressed and shared by everyone (SPEC.md "BlobRef and
 * blobs"), and a model serves any blob its state references; a session could
 * otherwise write a BlobRef naming someone else's blob into its own model and
 * read the bytes through it, or learn from an upload's answer that the same
 * bytes were already stored, and with which media type. So a session reads
 * through its models only the blobs its namespace uploaded, served with the
 * media type it gave them. In memory, as the sessions are: a namespace's
 * record goes when its session ends, and no token reaches it afterwards.
 *
 * @module
 */

/** Per namespace, the blob ids it uploaded and the media type it knows each by. */
export class SessionBlobs {
  readonly #byNamespace = new Map<string, Map<string, string>>();

  /**
   * Records that a namespace uploaded a blob; answers the media type the
   * namespace knows it by: the one of its first upload of these bytes.
   */
  record(namespaceId: string, blobId: string, mediaType: string): string {
    let blobs = this.#byNamespace.get(namespaceId);
    if (!blobs) this.#byNamespace.set(namespaceId, blobs = new Map());
    const known = blobs.get(blobId);
    if (known !== undefined) return known;
    blobs.set(blobId, mediaType);
    return mediaType;
  }

  /** The media type a namespace uploaded a blob with; `undefined` when it never uploaded it. */
  mediaType(namespaceId: string, blobId: string): string | undefined {
    return this.#byNamespace.get(namespaceId)?.get(blobId);
  }

  /** Drops a namespace's record (its session ended). */
  forget(namespaceId: string): void {
    this.#byNamespace.delete(namespaceId);
  }
}
