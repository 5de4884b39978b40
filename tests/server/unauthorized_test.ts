/**
 * Every 401 of the server has one shape (DECISIONS.md: `{"error": message}`,
 * plain `application/json`, with the bearer challenge), whichever check
 * refused: the key gate on REST, `/mcp`, the operator's routes and the
 * WebSocket handshake, a pairing session's token no session has, and the
 * pairing routes' own refusal of a request that carries no session.
 */
import assert from "node:assert/strict";
import { call, startTestServer, type TestServer } from "./helpers.ts";

/** A refusal as the client saw it. */
interface Refusal {
  status: number;
  contentType: string | null;
  challenge: string | null;
  body: unknown;
}

/** An HTTP request's refusal. */
async function refusal(
  server: TestServer,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Refusal> {
  const reply = await call(server.url, method, path, method === "POST" ? {} : undefined, headers);
  return {
    status: reply.status,
    contentType: reply.headers.get("content-type"),
    challenge: reply.headers.get("www-authenticate"),
    body: reply.json ?? reply.text,
  };
}

/** A WebSocket handshake's refusal, read off the wire (a WebSocket client never shows the answer). */
async function handshakeRefusal(server: TestServer, path: string): Promise<Refusal> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  try {
    const request = [
      `GET ${path} HTTP/1.1`,
      `Host: 127.0.0.1:${server.port}`,
      "Upgrade: websocket",
      "Connection: Upgrade",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      "",
      "",
    ].join("\r\n");
    await conn.write(new TextEncoder().encode(request));
    let text = "";
    const buffer = new Uint8Array(4096);
    const decoder = new TextDecoder();
    for (;;) {
      const end = text.indexOf("\r\n\r\n");
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text)?.[1]);
      if (end >= 0 && text.length - end - 4 >= length) break;
      const n = await conn.read(buffer);
      if (n === null) break;
      text += decoder.decode(buffer.subarray(0, n), { stream: true });
    }
    const [head, body] = [text.slice(0, text.indexOf("\r\n\r\n")), text.slice(text.indexOf("\r\n\r\n") + 4)];
    const header = (name: string) => new RegExp(`\\r\\n${name}: *([^\\r]*)`, "i").exec(head)?.[1] ?? null;
    return {
      status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
      contentType: header("content-type"),
      challenge: header("www-authenticate"),
      body: JSON.parse(body),
    };
  } finally {
    conn.close();
  }
}

/** Asserts the one shape of a 401. */
function assertUnauthorized(refused: Refusal, where: string, message?: string): void {
  assert.equal(refused.status, 401, where);
  assert.equal(refused.contentType, "application/json", where);
  assert.equal(refused.challenge, 'Bearer realm="svc"', where);
  assert.deepEqual(
    Object.keys(refused.body as object),
    ["error"],
    `${where}: ${JSON.stringify(refused.body)}`,
  );
  const error = (refused.body as { error: unknown }).error;
  assert.ok(typeof error === "string" && error.length > 0, where);
  if (message) assert.equal(error, message, where);
}

const KEY_MESSAGE = "Missing or invalid API key";
/** A token of a pairing session's form that no session has. */
const UNKNOWN_SESSION = `svcs_${"A".repeat(22)}.${"A".repeat(22)}`;

Deno.test("keyed mode: every route family's 401 is {error} as application/json with the bearer challenge", async () => {
  const key = "one-shape-key";
  const server = await startTestServer({ "svc.api.key": key });
  try {
    const wrong = { authorization: "Bearer wrong" };
    const withKey = { authorization: `Bearer ${key}` };
    const cases: [string, Refusal, string?][] = [
      ["REST without the key", await refusal(server, "GET", "/models"), KEY_MESSAGE],
      ["REST with a wrong key", await refusal(server, "POST", "/models", wrong), KEY_MESSAGE],
      [
        "REST with an unknown session's token",
        await refusal(server, "GET", "/models", {
          authorization: `Bearer ${UNKNOWN_SESSION}`,
        }),
      ],
      ["/mcp without the key", await refusal(server, "POST", "/mcp"), KEY_MESSAGE],
      ["/mcp with a wrong key", await refusal(server, "GET", "/mcp", wrong), KEY_MESSAGE],
      ["admin without the key", await refusal(server, "GET", "/admin/pairings"), KEY_MESSAGE],
      [
        "admin delete with a wrong key",
        await refusal(server, "DELETE", "/admin/pairings/ns", wrong),
        KEY_MESSAGE,
      ],
      ["/pair/session without the key", await refusal(server, "GET", "/pair/session"), KEY_MESSAGE],
      // The key passes the gate; the route itself wants a session's token.
      ["GET /pair/session with the key", await refusal(server, "GET", "/pair/session", withKey)],
      ["DELETE /pair/session with the key", await refusal(server, "DELETE", "/pair/session", withKey)],
      [
        "WebSocket handshake without a token",
        await handshakeRefusal(server, "/models/x/subscribe"),
        KEY_MESSAGE,
      ],
      [
        "WebSocket handshake with a wrong token",
        await handshakeRefusal(server, "/models/x/subscribe?token=wrong"),
        KEY_MESSAGE,
      ],
    ];
    for (const [where, refused, message] of cases) assertUnauthorized(refused, where, message);
  } finally {
    await server.close();
  }
});

Deno.test("open mode: the pairing routes' own 401 has the same shape", async () => {
  const server = await startTestServer();
  try {
    assertUnauthorized(await refusal(server, "GET", "/pair/session"), "GET /pair/session");
    assertUnauthorized(await refusal(server, "DELETE", "/pair/session"), "DELETE /pair/session");
    assertUnauthorized(
      await refusal(server, "GET", "/models", { authorization: `Bearer ${UNKNOWN_SESSION}` }),
      "an unknown session's token",
    );
  } finally {
    await server.close();
  }
});
