/**
 * The load generators' HTTP client: a minimal keep-alive connection and
 * latency percentiles, shared by the HTTP benchmarks.
 *
 * @module
 */

/**
 * A keep-alive HTTP/1.1 connection speaking just enough of the protocol to
 * POST a body and read a `Content-Length` answer. Cheaper than `fetch`, so on
 * a small machine the load generator leaves more CPU to the server it measures.
 */
export class Connection {
  readonly #conn: Deno.TcpConn;
  readonly #host: string;
  #buffer = new Uint8Array(0);
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();

  private constructor(conn: Deno.TcpConn, host: string) {
    this.#conn = conn;
    this.#host = host;
  }

  /** Connects to the host of `url`. */
  static async open(url: URL): Promise<Connection> {
    const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
    conn.setNoDelay(true);
    return new Connection(conn, url.host);
  }

  /** Sends one POST and resolves the status once the whole answer arrived. */
  async post(path: string, body: string): Promise<number> {
    const head = `POST ${path} HTTP/1.1\r\nHost: ${this.#host}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${this.#encoder.encode(body).byteLength}\r\n\r\n`;
    await this.#write(this.#encoder.encode(head + body));
    let headEnd: number;
    while ((headEnd = this.#indexOfHeadEnd()) < 0) await this.#fill();
    const headText = this.#decoder.decode(this.#buffer.subarray(0, headEnd));
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1]);
    const length = /\r\ncontent-length: *(\d+)/i.exec(headText);
    if (!length) throw new Error(`answer without Content-Length:\n${headText}`);
    const total = headEnd + 4 + Number(length[1]);
    while (this.#buffer.byteLength < total) await this.#fill();
    this.#buffer = this.#buffer.slice(total);
    return status;
  }

  /** Closes the connection. */
  close(): void {
    this.#conn.close();
  }

  async #write(bytes: Uint8Array): Promise<void> {
    for (let written = 0; written < bytes.byteLength;) {
      written += await this.#conn.write(bytes.subarray(written));
    }
  }

  async #fill(): Promise<void> {
    const chunk = new Uint8Array(16_384);
    const n = await this.#conn.read(chunk);
    if (n === null) throw new Error("server closed the connection");
    const next = new Uint8Array(this.#buffer.byteLength + n);
    next.set(this.#buffer);
    next.set(chunk.subarray(0, n), this.#buffer.byteLength);
    this.#buffer = next;
  }

  #indexOfHeadEnd(): number {
    const b = this.#buffer;
    for (let i = 0; i + 3 < b.byteLength; i++) {
      if (b[i] === 13 && b[i + 1] === 10 && b[i + 2] === 13 && b[i + 3] === 10) return i;
    }
    return -1;
  }
}

/** The `p`th percentile of ascending `sorted` values (NaN when empty). */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
