/**
 * `svc serve` (its arguments as cli/main.ts takes them) whose clock stands at
 * `SVC_TEST_CLOCK_AT` (epoch ms) until the server listens, then runs on from
 * there: to the service the start took no time, however long it really took,
 * so a test can tell what it did at its start from what it did later.
 *
 * @module
 */
import { main } from "../../cli/main.ts";

const at = Number(Deno.env.get("SVC_TEST_CLOCK_AT"));
const realNow = Date.now;
let listening: number | null = null;
Date.now = () => listening === null ? at : at + realNow() - listening;
const serve = Deno.serve;
// The clock starts once the service is open and its jobs armed: `Deno.serve` comes after.
Object.assign(Deno, {
  serve: (...args: Parameters<typeof Deno.serve>) => {
    listening = realNow();
    return serve(...args);
  },
});
Deno.exit(await main(Deno.args));
