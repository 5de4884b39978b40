/**
 * Durable file operations of the filesystem stores: whole files replaced by
 * an atomic rename (written to a temporary sibling and flushed first, the
 * directory flushed after), appends flushed before they count, and file
 * names for arbitrary ids.
 *
 * @module
 */
import { serverHasher } from "../platform.ts";

/** Longest file name made from an id; longer ones are named by their hash. */
const MAX_NAME = 200;

/** Flushes a directory, so a rename or creation inside it survives a crash. */
export async function syncDir(path: string): Promise<void> {
  const dir = await Deno.open(path, { read: true });
  try {
    await dir.sync();
  } finally {
    dir.close();
  }
}

/** Replaces `path` with `data` atomically and durably: readers see the old or the new file, whole. */
export async function writeFileAtomic(path: string, data: Uint8Array | string): Promise<void> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const temp = `${path}.tmp-${crypto.randomUUID()}`;
  const file = await Deno.open(temp, { write: true, createNew: true });
  try {
    await writeAll(file, bytes);
    await file.syncData();
  } catch (err) {
    // A half-written temporary file (a full disk) would hold the space until the next start.
    file.close();
    await Deno.remove(temp).catch(() => {});
    throw err;
  }
  file.close();
  await Deno.rename(temp, path);
  await syncDir(path.slice(0, path.lastIndexOf("/")) || "/");
}

/**
 * Appends `text` to an open file and flushes it to disk before resolving; when
 * that fails (a full disk), the file is cut back to where it ended, so a part
 * of `text` never runs into the next append's line.
 */
export async function appendDurable(file: Deno.FsFile, text: string): Promise<void> {
  const end = (await file.stat()).size;
  try {
    await writeAll(file, new TextEncoder().encode(text));
    await file.syncData();
  } catch (err) {
    await file.truncate(end).catch(() => {});
    throw err;
  }
}

/** Writes every byte (one write may take only part of a large buffer). */
async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.byteLength) offset += await file.write(bytes.subarray(offset));
}

/** Whether a temporary file of {@link writeFileAtomic} (left by a crash) is named so. */
export function isTemporary(name: string): boolean {
  return name.includes(".tmp-");
}

/**
 * A file name for an id: the id percent-encoded (readable for ordinary ids,
 * never `.`-led), or `~` and its SHA-256 when that would be too long.
 */
export async function nameOf(id: string): Promise<string> {
  const encoded = encodeURIComponent(id).replace(/^\./, "%2E").replace(/\*/g, "%2A");
  if (encoded.length <= MAX_NAME) return encoded;
  return `~${await serverHasher.sha256Hex(new TextEncoder().encode(id))}`;
}

/** Whether a path exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
