import assert from "node:assert/strict";
import { LOCK_FILE, lockDirectory } from "./dir_lock.ts";

const MODULE = new URL("./dir_lock.ts", import.meta.url).href;

/** A child process holding `dir`'s lock until its stdin closes; resolves once it holds it. */
async function holdInChild(dir: string): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { lockDirectory } from ${JSON.stringify(MODULE)};
       await lockDirectory(${JSON.stringify(dir)}, "test");
       console.log("held");
       for await (const _ of Deno.stdin.readable) { /* until stdin closes */ }`,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  assert.equal(value?.trim(), "held");
  return {
    pid: child.pid,
    async stop() {
      await child.stdin.close();
      await reader.cancel();
      await child.status;
    },
  };
}

Deno.test("a directory another process holds is refused, naming that process; free again once it ends", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const other = await holdInChild(dir);
    try {
      await assert.rejects(
        lockDirectory(dir, "svc.persistence-dir (SVC_PERSISTENCE_DIR) = 'x'"),
        new RegExp(
          `^Error: Configuration svc\\.persistence-dir \\(SVC_PERSISTENCE_DIR\\) = 'x': the directory is in use ` +
            `by another process \\(pid ${other.pid}, since .*\\); one process per directory: stop that one, or ` +
            `choose another directory$`,
        ),
      );
    } finally {
      await other.stop();
    }
    const lock = await lockDirectory(dir, "test");
    assert.match(await Deno.readTextFile(`${dir}/${LOCK_FILE}`), new RegExp(`^pid ${Deno.pid}, since `));
    lock.release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("within one process the stores of a directory share its lock until the last releases it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const [first, second] = await Promise.all([
      lockDirectory(dir, "test"),
      lockDirectory(`${dir}/.`, "test"),
    ]);
    first.release();
    first.release(); // a second release of one acquisition counts once
    // Still held by `second`: another process is refused.
    const child = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `import { lockDirectory } from ${JSON.stringify(MODULE)}; await lockDirectory(${
          JSON.stringify(dir)
        }, "test");`,
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.notEqual(child.code, 0);
    assert.match(new TextDecoder().decode(child.stderr), /the directory is in use by another process/);
    second.release();
    const other = await holdInChild(dir); // released: another process takes it
    await other.stop();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a lock released within a moment of being asked for is taken, not refused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const other = await holdInChild(dir);
    const asked = lockDirectory(dir, "test");
    await new Promise((resolve) => setTimeout(resolve, 200));
    await other.stop();
    const lock = await asked;
    assert.match(await Deno.readTextFile(`${dir}/${LOCK_FILE}`), new RegExp(`^pid ${Deno.pid}, since `));
    lock.release();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a directory that cannot be resolved is refused naming the setting, its path cut short", async () => {
  const dir = `/nonexistent-${"d".repeat(300)}`;
  const err = await lockDirectory(dir, "svc.persistence-dir (SVC_PERSISTENCE_DIR) = '…'").then(
    () => null,
    (e) => e,
  );
  assert.match(
    err?.message ?? "",
    /^Configuration svc\.persistence-dir \(SVC_PERSISTENCE_DIR\) = '…': cannot resolve the directory: .*\/nonexistent-d{187}… \(313 characters\)/,
  );
  assert.ok(err.message.length < 600, err.message);
});

Deno.test("a lock file that is there but cannot be opened is said to be so, not 'cannot create'", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A directory in the lock file's place: it exists, and no file of it opens for writing.
    await Deno.mkdir(`${dir}/${LOCK_FILE}`);
    await assert.rejects(
      lockDirectory(dir, "svc.persistence-dir (SVC_PERSISTENCE_DIR) = 'x'"),
      /^Error: Configuration svc\.persistence-dir \(SVC_PERSISTENCE_DIR\) = 'x': cannot open its lock file \S*svc\.lock: Is a directory/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
