import assert from "node:assert/strict";
import { runSteps, settled, type Steps } from "./steps.ts";

function* sum(values: (number | Promise<number>)[]): Steps<number> {
  let total = 0;
  for (const value of values) total += yield* settled(value);
  return total;
}

Deno.test("runSteps answers at once when a job never waits", () => {
  assert.equal(runSteps(sum([1, 2, 3])), 6);
});

Deno.test("runSteps gives a promise once a job waits, and resumes it after each wait", async () => {
  const outcome = runSteps(sum([1, Promise.resolve(2), 3, Promise.resolve(4)]));
  assert.ok(outcome instanceof Promise);
  assert.equal(await outcome, 10);
});

Deno.test("a throw before any wait throws at once; after a wait it rejects", async () => {
  function* failing(wait: boolean): Steps<number> {
    if (wait) yield* settled(Promise.resolve(0));
    throw new Error("refused");
  }
  assert.throws(() => runSteps(failing(false)), /refused/);
  await assert.rejects(async () => await runSteps(failing(true)), /refused/);
});

Deno.test("a rejected wait throws into the job, where it can be caught as with await", async () => {
  function* recovering(): Steps<string> {
    try {
      yield* settled(Promise.reject(new Error("interpreter failed")));
      return "not reached";
    } catch (err) {
      return `caught: ${(err as Error).message}`;
    }
  }
  assert.equal(await runSteps(recovering()), "caught: interpreter failed");
  function* uncaught(): Steps<number> {
    return yield* settled(Promise.reject(new Error("lost")));
  }
  await assert.rejects(async () => await runSteps(uncaught()), /lost/);
});
