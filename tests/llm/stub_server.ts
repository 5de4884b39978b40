/**
 * A scripted LLM on a loopback port that speaks the three wire formats the
 * provider clients use: OpenAI-style chat completions (`…/chat/completions`:
 * openai, ollama, openrouter, groq, mistral, cerebras), Anthropic messages
 * (`…/messages`) and Gemini's `generateContent` / `streamGenerateContent`.
 * Each request takes the next turn of the script (the last one repeats):
 * text, a tool call, a cut-off answer (`finish: "length"`), an HTTP error, or
 * a hang until the client goes away. Streaming and plain answers both work.
 *
 * @module
 */

/** One scripted answer. */
export interface StubTurn {
  /** The answer text (the JSON of a spec, usually). */
  text?: string;
  /** A tool call instead of text. */
  tool?: { name: string; input: unknown };
  /** `length`: the answer was cut at the token budget. */
  finish?: "stop" | "length";
  /** Answer with this HTTP error instead. */
  error?: { status: number; message: string };
  /** Stream only keep-alive comments, never an answer; resolve `aborted` when the client disconnects. */
  hang?: boolean;
}

/** A recorded request. */
export interface StubRequest {
  format: "openai" | "anthropic" | "gemini";
  path: string;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** A running stub. */
export interface LlmStub {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: StubRequest[];
  /** Resolves when a hanging turn's request has arrived (the call is in flight). */
  hanging: Promise<void>;
  /** Resolves when a hanging request's client went away. */
  aborted: Promise<void>;
  close(): Promise<void>;
}

const SSE = { "content-type": "text/event-stream", "cache-control": "no-cache" };

function sse(frames: { event?: string; data: unknown }[]): string {
  return frames.map((f) => `${f.event ? `event: ${f.event}\n` : ""}data: ${JSON.stringify(f.data)}\n\n`).join(
    "",
  );
}

function openAi(turn: StubTurn, stream: boolean, model: string): Response {
  const finish = turn.tool ? "tool_calls" : turn.finish === "length" ? "length" : "stop";
  const toolCall = turn.tool
    ? {
      index: 0,
      id: "call0abcd",
      type: "function",
      function: { name: turn.tool.name, arguments: JSON.stringify(turn.tool.input) },
    }
    : undefined;
  const usage = { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 };
  if (!stream) {
    return Response.json({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1,
      model,
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: turn.tool ? null : turn.text ?? "",
          ...(toolCall ? { tool_calls: [toolCall] } : {}),
        },
        finish_reason: finish,
      }],
      usage,
    });
  }
  const chunk = (delta: unknown, finish_reason: string | null, extra = {}) => ({
    data: {
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model,
      choices: [{ index: 0, delta, finish_reason }],
      ...extra,
    },
  });
  const frames = [chunk({ role: "assistant", content: "" }, null)];
  if (toolCall) frames.push(chunk({ tool_calls: [toolCall] }, null));
  else {
    const text = turn.text ?? "";
    const half = Math.floor(text.length / 2);
    frames.push(chunk({ content: text.slice(0, half) }, null), chunk({ content: text.slice(half) }, null));
  }
  frames.push(chunk({}, finish, { usage }));
  return new Response(sse(frames) + "data: [DONE]\n\n", { headers: SSE });
}

// deno-lint-ignore no-explicit-any
function anthropic(turn: StubTurn, stream: boolean, model: string, body: any): Response {
  // The client's forced `json` tool (structured output without the native format): answer through it.
  const forced = body.tool_choice?.type === "tool" ? body.tool_choice.name : undefined;
  let tool = turn.tool;
  if (!tool && forced && turn.text !== undefined) {
    try {
      tool = { name: forced, input: JSON.parse(turn.text) };
    } catch {
      tool = undefined;
    }
  }
  const stop = tool && turn.finish !== "length"
    ? "tool_use"
    : turn.finish === "length"
    ? "max_tokens"
    : "end_turn";
  const usage = { input_tokens: 10, output_tokens: 20 };
  const block = tool
    ? { type: "tool_use", id: "toolu_01", name: tool.name, input: tool.input }
    : { type: "text", text: turn.text ?? "" };
  if (!stream) {
    return Response.json({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model,
      content: [block],
      stop_reason: stop,
      stop_sequence: null,
      usage,
    });
  }
  const frames: { event: string; data: unknown }[] = [{
    event: "message_start",
    data: {
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    },
  }];
  if (tool) {
    frames.push(
      {
        event: "content_block_start",
        data: {
          type: "content_block_start",
          index: 0,
          content_block: { type: "tool_use", id: "toolu_01", name: tool.name, input: {} },
        },
      },
      {
        event: "content_block_delta",
        data: {
          type: "content_block_delta",
          index: 0,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(tool.input) },
        },
      },
    );
  } else {
    const text = turn.text ?? "";
    const half = Math.floor(text.length / 2);
    frames.push(
      {
        event: "content_block_start",
        data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      },
      {
        event: "content_block_delta",
        data: {
          type: "content_block_delta",
          index: 0,
          delta: { type: "text_delta", text: text.slice(0, half) },
        },
      },
      {
        event: "content_block_delta",
        data: {
          type: "content_block_delta",
          index: 0,
          delta: { type: "text_delta", text: text.slice(half) },
        },
      },
    );
  }
  frames.push(
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    {
      event: "message_delta",
      data: {
        type: "message_delta",
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: 20 },
      },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  );
  return new Response(sse(frames), { headers: SSE });
}

function gemini(turn: StubTurn, stream: boolean): Response {
  const part = turn.tool
    ? { functionCall: { name: turn.tool.name, args: turn.tool.input } }
    : { text: turn.text ?? "" };
  const answer = {
    candidates: [{
      content: { parts: [part], role: "model" },
      finishReason: turn.finish === "length" ? "MAX_TOKENS" : "STOP",
      index: 0,
    }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 20, totalTokenCount: 30 },
  };
  return stream ? new Response(sse([{ data: answer }]), { headers: SSE }) : Response.json(answer);
}

function errorBody(format: StubRequest["format"], error: { status: number; message: string }): Response {
  const body = format === "anthropic"
    ? { type: "error", error: { type: "invalid_request_error", message: error.message } }
    : format === "gemini"
    ? { error: { code: error.status, message: error.message, status: "INVALID_ARGUMENT" } }
    : { error: { message: error.message, type: "invalid_request_error", code: null } };
  return Response.json(body, { status: error.status });
}

/** Starts a stub answering with `script` in order (the last turn repeats), or with `script(request)`. */
export function startLlmStub(
  script: StubTurn[] | ((request: StubRequest, index: number) => StubTurn),
): LlmStub {
  const requests: StubRequest[] = [];
  const aborted = Promise.withResolvers<void>();
  const hanging = Promise.withResolvers<void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const path = url.pathname;
    const format: StubRequest["format"] = path.endsWith("/chat/completions")
      ? "openai"
      : path.endsWith("/messages")
      ? "anthropic"
      : /:(stream)?generateContent$/i.test(path)
      ? "gemini"
      : "openai";
    const body = req.method === "POST" ? await req.json().catch(() => ({})) : {};
    const request = { format, path, headers: req.headers, body };
    requests.push(request);
    const index = requests.length - 1;
    const turn = typeof script === "function"
      ? script(request, index)
      : script[Math.min(index, script.length - 1)];
    if (turn.hang) {
      // A provider that streams nothing but keep-alive comments: the write that fails tells us the client left.
      hanging.resolve();
      let timer: ReturnType<typeof setInterval> | undefined;
      const encoder = new TextEncoder();
      return new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            timer = setInterval(() => {
              try {
                controller.enqueue(encoder.encode(": keep-alive\n\n"));
              } catch {
                clearInterval(timer);
              }
            }, 25);
          },
          cancel() {
            clearInterval(timer);
            aborted.resolve();
          },
        }),
        { headers: SSE },
      );
    }
    if (turn.error) return errorBody(format, turn.error);
    const model = String(body.model ?? "stub-model");
    if (format === "anthropic") return anthropic(turn, body.stream === true, model, body);
    if (format === "gemini") return gemini(turn, /stream/i.test(path));
    return openAi(turn, body.stream === true, model);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    requests,
    hanging: hanging.promise,
    aborted: aborted.promise,
    close: () => server.shutdown(),
  };
}
