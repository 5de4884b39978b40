/**
 * A loopback server that accepts connections and never answers, for tests of
 * request timeouts; disposing it drops the connections it holds.
 *
 * @module
 */

/** A silent server: its base URL (no trailing slash), disposed with `await using`. */
export interface SilentServer extends AsyncDisposable {
  url: string;
}

/** Starts a silent server on a free loopback port. */
export function silentServer(): SilentServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      for (const conn of held) conn.close();
    },
  };
}
