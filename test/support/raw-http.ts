/**
 * HTTP over a bare `node:net` socket, for requests no HTTP client will send
 * (a malformed request line, 20 KB of headers, CONNECT) and for watching what
 * the server does with the connection.
 */
import { connect } from "node:net";

export interface RawAnswer {
  /** 0 when nothing parseable came back. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The socket error the client saw, if any (ECONNRESET, EPIPE …). */
  error: string | null;
}

/** Parses the first response in `text` (Content-Length bodies only: all the server sends on errors). */
export function parseAnswer(text: string, error: string | null = null): RawAnswer {
  const end = text.indexOf("\r\n\r\n");
  if (!text.startsWith("HTTP/1.1 ") || end < 0)
    return { status: 0, headers: {}, body: text, error };
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(":");
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  const length = Number(headers["content-length"] ?? 0);
  const body = Buffer.from(text.slice(end + 4), "latin1")
    .subarray(0, length)
    .toString("utf8");
  return { status: Number(statusLine!.split(" ")[1]), headers, body, error };
}

function complete(text: string): boolean {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const length = /\r\ncontent-length: *([0-9]+)/i.exec(text.slice(0, end + 2));
  return length !== null && Buffer.byteLength(text.slice(end + 4), "latin1") >= Number(length[1]);
}

/**
 * Sends `head`, then `body` in `chunkSize` pieces `pauseMs` apart (a client
 * still uploading), and resolves with the answer once it is whole (or, with
 * `untilClose`, once the server closes the connection), or `timeoutMs` passes.
 */
export function rawExchange(
  port: number,
  head: string | Buffer,
  opts: {
    body?: Buffer;
    chunkSize?: number;
    pauseMs?: number;
    timeoutMs?: number;
    /** Wait for the server to close the connection, not just for a whole answer. */
    untilClose?: boolean;
  } = {},
): Promise<RawAnswer & { bodyBytesSent: number }> {
  const { body, chunkSize = 64 * 1024, pauseMs = 2, timeoutMs = 5000, untilClose = false } = opts;
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let error: string | null = null;
    let sent = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({
        ...parseAnswer(Buffer.concat(chunks).toString("latin1"), error),
        bodyBytesSent: sent,
      });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on("data", (c: Buffer) => {
      chunks.push(c);
      if (!untilClose && complete(Buffer.concat(chunks).toString("latin1"))) finish();
    });
    socket.on("error", (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    socket.on("close", finish);
    const pump = () => {
      if (done || socket.destroyed || !body || sent >= body.length) return;
      const piece = body.subarray(sent, sent + chunkSize);
      sent += piece.length;
      socket.write(piece, (e) => {
        if (e) error ??= (e as NodeJS.ErrnoException).code ?? e.message;
        else setTimeout(pump, pauseMs);
      });
    };
    socket.write(head, () => pump());
  });
}
