/**
 * A POST to `/mcp` answered as JSON-RPC 2.0 asks, as stdio answers a line:
 * the SDK transport refuses a whole body when one member is no JSON-RPC
 * message (-32700, a parse error, though the body parsed) and takes an empty
 * batch as a body of notifications (202). Here a body that is one such value
 * gets -32600 (Invalid Request), an empty batch one -32600, and a batch its
 * valid members' answers plus -32600 for each other member. In a session the
 * SDK refuses a whole batch holding `initialize` ("Server already
 * initialized", id null); here, as over stdio, only its `initialize` is
 * refused ({@link batchedInitializeRefusal}) and the rest runs; a lone one
 * gets stdio's answer too ({@link reinitializeRefusal}), with its id.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { invalidRequest } from "./invalid_request.ts";
import { batchedInitializeRefusal, reinitializeRefusal } from "./lifecycle.ts";

/** The SDK's answer to a body that parsed but holds a member that is no JSON-RPC message. */
const WHOLE_REFUSAL = "Parse error: Invalid JSON-RPC message";
/** The SDK's answer, in a session, to a body holding a well-formed `initialize`. */
const REINITIALIZE = "Invalid Request: Server already initialized";

/** What of the body the transport's answer refused whole, if it must be looked at again: its members or it. */
async function refusedWhole(response: Response): Promise<"members" | "batch" | null> {
  if (response.status === 202) return "members";
  if (response.status !== 400) return null;
  const message = (await response.clone().json().catch(() => undefined))?.error?.message;
  return message === WHOLE_REFUSAL ? "members" : message === REINITIALIZE ? "batch" : null;
}

/** Handles a POST through `transport`, answering members that are no JSON-RPC message with -32600. */
export async function handlePost(
  transport: WebStandardStreamableHTTPServerTransport,
  request: Request,
): Promise<Response> {
  // A copy of the body, read only when the transport refused it whole or found no request in it.
  const copy = request.clone();
  const response = await transport.handleRequest(request);
  const refused = await refusedWhole(response);
  if (!refused) {
    await copy.body?.cancel();
    return response;
  }
  const body: unknown = JSON.parse(await copy.text());
  if (!Array.isArray(body)) {
    if (response.status === 202) return response;
    // A lone `initialize` in a session: refused as over stdio, with its id (the SDK's has id null).
    const answer = refused === "batch" ? reinitializeRefusal(body) : invalidRequest(body);
    return answer ? Response.json(answer, { status: 400 }) : response;
  }
  if (!body.length) return Response.json(invalidRequest(null), { status: 400 });
  const valid: JSONRPCMessage[] = [];
  const answers: unknown[] = [];
  for (const item of body) {
    const initialize = refused === "batch" ? batchedInitializeRefusal(item) : undefined;
    if (initialize) {
      answers.push(initialize);
      continue;
    }
    const message = JSONRPCMessageSchema.safeParse(item);
    if (message.success) valid.push(message.data);
    else answers.push(invalidRequest(item));
  }
  if (!answers.length) return response;
  if (valid.length) {
    // The valid members go through the transport as a batch of their own (the headers checked again).
    const rest = await transport.handleRequest(
      new Request(copy.url, { method: "POST", headers: copy.headers }),
      {
        parsedBody: valid,
      },
    );
    if (rest.status === 200) answers.unshift(...[await rest.json()].flat());
    else if (rest.status !== 202) return rest;
  }
  // The session named, as in the SDK's own answers there (its refusals name none).
  return Response.json(answers, {
    status: 200,
    headers: transport.sessionId ? { "mcp-session-id": transport.sessionId } : {},
  });
}
