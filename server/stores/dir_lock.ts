/**
 * One process per data directory. Two servers on one `svc.persistence-dir`
 * (started twice, on two ports) would each keep the models in memory and
 * write the same log and audit keys over each other: writes lost, audit
 * trails broken, silently. Opening a directory's store therefore takes an
 * exclusive advisory `flock` of the directory itself and of `<dir>/svc.lock`
 * (which the kernel releases when the process ends, `kill -9` included, so a
 * restart never waits for a stale lock); a second process is refused with a
 * message naming the directory and the process holding it, which the lock
 * file records. The directory's own lock is what holds: a lock file deleted
 * while its holder runs (by hand, by a clean-up job) left the next process a
 * fresh file to lock. The file's lock keeps refusing builds that take only it.
 *
 * Within one process the stores of one directory (Deno KV with filesystem
 * blobs beside it, a test reopening a service) share the lock, counted.
 *
 * @module
 */
import { MAX_QUOTED_WORD, quoted } from "../../engine/quoted.ts";
import { failureAbout } from "../config_failure.ts";

/** The lock file a data directory holds while a process uses it. */
export const LOCK_FILE = "svc.lock";

/** A held directory lock; `release` once per `lockDirectory`. */
export interface DirectoryLock {
  release(): void;
}

interface HeldLock {
  /** The directory and its lock file, open and locked. */
  files: Deno.FsFile[];
  users: number;
}

/**
 * How long a held lock is tried again before it counts as another process's.
 * A process this one spawns (a test runner's, a host's) gets a copy of every
 * open descriptor until it executes its program, the lock's included; a lock
 * this process released that very moment then looks held for a few
 * milliseconds (seen as a failed reopen in a parallel test run).
 */
const RETRY_MS = 1_000;

/** Tries the exclusive lock of `file` until it is taken or {@link RETRY_MS} have passed. */
async function lockSoon(file: Deno.FsFile): Promise<boolean> {
  const deadline = Date.now() + RETRY_MS;
  while (!(await file.tryLock(true))) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Locks this process holds, by the directory's real path. */
const held = new Map<string, HeldLock>();
/** Acquisitions in progress, so two stores opening one directory at once share one. */
const pending = new Map<string, Promise<HeldLock>>();

/**
 * Takes the directory `dir` (which must exist) for this process. `setting`
 * names where it was configured (`svc.persistence-dir (SVC_PERSISTENCE_DIR) = './data'`)
 * for the error when another process holds it.
 */
export async function lockDirectory(dir: string, setting: string): Promise<DirectoryLock> {
  let key: string;
  try {
    key = await Deno.realPath(dir);
  } catch (err) {
    // Removed since it was made, or a parent it may not search: the platform's words alone named no setting.
    throw new Error(
      `Configuration ${setting}: cannot resolve the directory: ${failureAbout((err as Error).message, dir)}`,
    );
  }
  const lock = held.get(key) ?? await acquireOnce(key, setting);
  lock.users++;
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      if (--lock.users > 0) return;
      held.delete(key);
      for (const file of lock.files) file.close(); // closing a descriptor releases its flock
    },
  };
}

function acquireOnce(key: string, setting: string): Promise<HeldLock> {
  let acquiring = pending.get(key);
  if (!acquiring) {
    acquiring = acquire(key, setting);
    pending.set(key, acquiring);
    acquiring.then((taken) => held.set(key, taken), () => {}).finally(() => pending.delete(key));
  }
  return acquiring;
}

/**
 * Opens `path` (creating a missing file) for its lock, naming `what` it is
 * when it cannot be opened.
 */
async function openForLock(
  path: string,
  what: string,
  setting: string,
  directory: boolean,
): Promise<Deno.FsFile> {
  try {
    return await Deno.open(path, directory ? { read: true } : { read: true, write: true, create: true });
  } catch (err) {
    // A lock file that is there but cannot be opened (a directory in its place, no permission) was not to create.
    const present = directory || await Deno.lstat(path).then(() => true, () => false);
    throw new Error(
      `Configuration ${setting}: cannot ${present ? "open" : "create"} ${what} ${
        quoted(path, MAX_QUOTED_WORD)
      }: ${failureAbout((err as Error).message, path)}`,
    );
  }
}

async function acquire(dir: string, setting: string): Promise<HeldLock> {
  const path = `${dir}/${LOCK_FILE}`;
  // Windows opens no directory as a file: there the lock file is the lock.
  const files = Deno.build.os === "windows" ? [] : [await openForLock(dir, "the directory", setting, true)];
  try {
    files.push(await openForLock(path, "its lock file", setting, false));
  } catch (err) {
    for (const file of files) file.close();
    throw err;
  }
  for (const file of files) {
    if (await lockSoon(file)) continue;
    for (const opened of files) opened.close();
    const holder = await Deno.readTextFile(path).then((text) => text.trim(), () => "");
    throw new Error(
      `Configuration ${setting}: the directory is in use by another process` +
        (holder ? ` (${holder})` : "") +
        `; one process per directory: stop that one, or choose another directory`,
    );
  }
  // Names this process for the message another one gets.
  const file = files[files.length - 1];
  await file.truncate(0);
  await file.write(new TextEncoder().encode(`pid ${Deno.pid}, since ${new Date().toISOString()}\n`));
  return { files, users: 0 };
}
