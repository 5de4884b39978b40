/**
 * The interaction log (`GET /llm/interactions`): the newest 50 provider calls,
 * newest first. Unless `svc.llm.log.capture-content` is on, the content is
 * redacted as it is recorded (never kept in memory): every non-null text field
 * becomes `"[redacted]"` (`prompt` always), `webFetchCalls` becomes `[]`,
 * provider and model stay.
 *
 * @module
 */
import type { InteractionRecord } from "../engine/service/generation.ts";

/** Records kept. */
export const INTERACTION_LOG_SIZE = 50;

const REDACTED = "[redacted]";

/** A record with its content redacted. */
export function redact(record: InteractionRecord): InteractionRecord {
  const hide = (value: string | null) => (value === null ? null : REDACTED);
  return {
    ...record,
    system: hide(record.system),
    user: hide(record.user),
    prompt: REDACTED,
    response: hide(record.response),
    errorMessage: hide(record.errorMessage),
    webFetchCalls: [],
  };
}

/** The bounded log. */
export class InteractionLog {
  readonly #records: InteractionRecord[] = [];
  readonly #capture: boolean;

  constructor(captureContent: boolean) {
    this.#capture = captureContent;
  }

  /** Records a call: only its redacted form unless content capture is on. */
  add(record: InteractionRecord): void {
    this.#records.unshift(this.#capture ? record : redact(record));
    if (this.#records.length > INTERACTION_LOG_SIZE) this.#records.length = INTERACTION_LOG_SIZE;
  }

  /** Newest first, redacted unless content capture is on. */
  list(): InteractionRecord[] {
    return this.#records.map((r) => structuredClone(r));
  }
}
