/**
 * Server-sent events read from a byte stream (the remote client's side of the
 * event-stream routes): frames separated by a blank line, `event:` naming the
 * frame (default `message`), `data:` lines joined by newlines; comments and
 * other fields ignored.
 *
 * @module
 */

/** One event frame. */
export interface SseEvent {
  event: string;
  data: string;
}

/** The frames of an event stream, in order. */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "message";
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = done ? "" : lines.pop()!;
      for (const line of lines) {
        if (line === "") {
          if (data.length) yield { event, data: data.join("\n") };
          event = "message";
          data = [];
        } else if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (done) {
        if (data.length) yield { event, data: data.join("\n") };
        return;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
