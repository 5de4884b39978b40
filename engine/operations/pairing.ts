/**
 * Browser pairing (SPEC.md "Remote with browser", Authentication 7): the
 * shapes of the device-authorization handshake in the style of RFC 8628, which
 * the server's `/pair` routes answer and the CLI's pairing client and the
 * playground's approve page read, and the `pair_browser` operation.
 *
 * `pairBrowser` is a local operation: pairing is the calling process's own
 * state (a pending pairing, then a session token), not a {@link ModelApi}
 * call, so it runs through the {@link BrowserPairing} port the host passes in
 * {@link LocalContext.pairing}. Only remote-with-browser mode and the
 * server's own `/mcp` have one, and only there is the MCP tool offered
 * (`available`); elsewhere the console command says which mode it needs.
 *
 * @module
 */
import { z } from "zod";
import { badRequest, ServiceError } from "../errors.ts";
import type { RunOptions } from "../service/api.ts";
import { component, lazySchema } from "./json_schema.ts";
import { localOperation } from "./operation.ts";

/** `POST /pair`: a new pairing (RFC 8628 3.2, camel-cased). */
export const PAIRING_STARTED = component(
  "PairingStarted",
  () =>
    z.looseObject({
      pairCode: z.string().describe("identifies the pairing in token requests (with the device secret)"),
      deviceSecret: z.string().describe("random 128-bit secret; only the agent's side ever holds it"),
      userCode: z.string().describe("the code the person checks (or types) on the approve page: XXXX-XXXX"),
      verificationUri: z.string().describe("the approve page, where the code is typed"),
      verificationUriComplete: z.string().describe("the approve page with the code in its fragment"),
      expiresInSec: z.int().describe("seconds until the pairing expires unapproved"),
      intervalSec: z.int().describe("seconds between token requests"),
    }),
);

/** `POST /pair/token` body. */
export const PAIRING_TOKEN_REQUEST = component(
  "PairingTokenRequest",
  () => z.object({ pairCode: z.string(), deviceSecret: z.string() }),
);

/** A session granted by an approved pairing: the token is a credential for the namespace's models only. */
export const PAIRING_SESSION = component(
  "PairingSession",
  () =>
    z.looseObject({
      sessionToken: z.string().describe("bearer token (and WebSocket `token`) scoped to the namespace"),
      namespaceId: z.string().describe("the session's namespace; its model ids are plain names"),
    }),
);

/** `POST /pair/approve` and `/pair/deny` body. */
export const PAIRING_DECISION = component(
  "PairingDecision",
  () => z.object({ userCode: z.string().describe("the code shown on the page, as the agent showed it") }),
);

/** What `pair_browser` answers. */
export const PAIRING_RESULT = lazySchema(() =>
  z.looseObject({
    status: z.enum(["pending", "paired", "already_paired"]),
    namespaceId: z.string().describe("paired: the session's namespace").optional(),
    verificationUri: z.string().describe("pending: the approve page").optional(),
    verificationUriComplete: z.string().describe("pending: the approve page with the code").optional(),
    userCode: z.string().describe("pending: the code the person checks").optional(),
    expiresInSec: z.int().describe("pending: seconds until the link expires").optional(),
    rejoin: z.literal(true).describe("the link or approval brings a tab back to the session").optional(),
  })
);

/** `pair_browser`'s answer. */
export type PairingResult =
  | {
    status: "pending";
    verificationUri: string;
    verificationUriComplete: string;
    userCode: string;
    expiresInSec: number;
    /** The link brings a tab back to the live session (its tab closed): the same models. */
    rejoin?: true;
  }
  | { status: "paired" | "already_paired"; namespaceId: string; rejoin?: true };

/** The pairing of the calling process (remote-with-browser mode). */
export interface BrowserPairing {
  /**
   * Starts a pairing, or resumes the pending one, and waits (within the
   * call's limit, honouring `options.signal`) for a person to approve it.
   */
  pair(options?: RunOptions): Promise<PairingResult>;
}

/** The message of every model operation before the pairing is done. */
export const NOT_PAIRED_MESSAGE = "Not paired with a browser yet: call pair_browser first, have the person " +
  "open the link it returns and approve, and call pair_browser again until it answers paired";

/** What every model operation fails with before the pairing is done. */
export class NotPairedError extends ServiceError {
  constructor() {
    super("unauthorized", NOT_PAIRED_MESSAGE);
  }
}

/** `pair_browser`. */
export const pairBrowser = localOperation({
  name: "pairBrowser",
  summary: "pair with a person's browser tab (remote-with-browser mode): a link and a code to approve, " +
    "then the session's namespace",
  input: () => z.object({}),
  output: PAIRING_RESULT,
  run: ({ pairing }, _input, options) => {
    if (!pairing) {
      throw badRequest("pair_browser needs remote-with-browser mode: start with --url <server> --browser");
    }
    return pairing.pair(options);
  },
  console: { command: "pair-browser" },
  mcp: {
    tool: "pair_browser",
    title: "Pair with a browser tab",
    description: "Pair this agent with a person's browser tab. Answers {status:'pending', verificationUri, " +
      "verificationUriComplete, userCode, expiresInSec}: show the person the link and the code, then call " +
      "again (each call waits up to 60 s for the approval) until {status:'paired', namespaceId}. Once " +
      "paired, every model tool acts on the session the person watches and edits live; list_models shows " +
      "only its models. A second call once paired answers already_paired; once the person's tab has been " +
      "gone the server's tab-idle time (90 s by default; closed) it answers a new link with rejoin:true instead: approved in a new tab, the " +
      "session and its models come back there.",
    kind: "write",
    idempotent: true,
    available: (host) => host.pairing,
  },
});
