/**
 * `deno task compile` for the host: the binary is built and answers a console
 * line. `deno compile` downloads the runtime it embeds; where the network
 * refuses that download (this project's CI sandbox is loopback only), the test is
 * ignored: tests/run_all.ts finds that out before the tests start (a preflight,
 * tests/preflight.ts) and prints why. Run directly with `deno test`, the test
 * finds it out itself, prints why and stops there. Any other compile failure
 * fails the test.
 */
import assert from "node:assert/strict";
import { compileCli, isRuntimeDownloadFailure } from "../../cli/build/compile.ts";
import { COMPILE_ENV, COMPILE_TEST, downloadFailureReason, preflightResult } from "../preflight.ts";
import { orderSpec } from "../server/helpers.ts";

/** Set by tests/run_all.ts; only read here, never probed at load time. */
const preflight = preflightResult(COMPILE_ENV);

Deno.test({ name: COMPILE_TEST, ignore: preflight?.available === false, fn: compilesAndAnswers });

async function compilesAndAnswers(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "svc-compile-" });
  try {
    const output = `${dir}/svc${Deno.build.os === "windows" ? ".exe" : ""}`;
    const result = await compileCli(undefined, output);
    if (!result.ok && isRuntimeDownloadFailure(result.stderr)) {
      // Reached when deno test runs directly (no preflight): a running test cannot be marked ignored.
      console.log(
        `not run: deno compile could not download its runtime (${downloadFailureReason(result.stderr)}); ` +
          "deno task test reports this test as ignored",
      );
      return;
    }
    assert.ok(result.ok, result.stderr);
    const child = new Deno.Command(output, {
      args: ["console"],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      cwd: dir,
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(
      new TextEncoder().encode(`${JSON.stringify({ cmd: "create-model", spec: orderSpec() })}\n`),
    );
    await writer.close();
    const { code, stdout } = await child.output();
    assert.equal(code, 0);
    assert.equal(
      new TextDecoder().decode(stdout),
      '{"ok":true,"result":{"id":"order","status":"created"}}\n',
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("only a failed runtime download counts as the network's refusal", () => {
  assert.ok(isRuntimeDownloadFailure(
    "Download https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip\n" +
      "error: Writing deno compile executable\n    1: error sending request for url " +
      "(https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip): client error (Connect)",
  ));
  assert.ok(!isRuntimeDownloadFailure('error: Module not found "file:///x/cli/main.ts"'));
  assert.ok(
    !isRuntimeDownloadFailure("Download https://dl.deno.land/x.zip\nerror: Permission denied (os error 13)"),
  );
});
