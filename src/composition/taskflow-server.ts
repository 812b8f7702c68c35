/**
 * What a host sees of the HTTP server createTaskflow builds: requests without
 * a socket (tests), a listen on an address of its choosing, and its log. The
 * server is Fastify; these types are not, so Fastify's (and
 * light-my-request's) types stay out of the published ones and the server
 * may change under them. The request and response carry the fields of
 * Fastify's `inject` that callers use.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import type { HostLogger } from "./host-logger.ts";

/** A request body: an object is sent as JSON; a string, Buffer or stream as it is. */
export type InjectPayload = string | Buffer | NodeJS.ReadableStream | object;

export interface InjectRequest {
  /** GET by default; any case. */
  method?: string | undefined;
  /** A path with its query (e.g. `/v1/tasks?user=alice`), or its parts. */
  url?:
    string | { pathname: string; query?: string | Record<string, string | string[]> } | undefined;
  headers?: IncomingHttpHeaders | OutgoingHttpHeaders | undefined;
  query?: string | Record<string, string | string[]> | undefined;
  payload?: InjectPayload | undefined;
  body?: InjectPayload | undefined;
  cookies?: Record<string, string> | undefined;
  remoteAddress?: string | undefined;
}

export interface InjectCookie {
  name: string;
  value: string;
  [attribute: string]: unknown;
}

export interface InjectResponse {
  readonly statusCode: number;
  readonly statusMessage: string;
  readonly headers: OutgoingHttpHeaders;
  readonly trailers: Record<string, string>;
  readonly body: string;
  readonly payload: string;
  readonly rawPayload: Buffer;
  readonly cookies: InjectCookie[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as Fastify's: a test reads what it expects
  json<T = any>(): T;
  stream(): Readable;
}

export interface TaskflowServer {
  /** Answers one request in-process, as if it came over HTTP; a string is a GET of that path. */
  inject(request: InjectRequest | string): Promise<InjectResponse>;
  /** Listens on this address (port 0: any free one); resolves with it, e.g. http://127.0.0.1:8081. */
  listen(address: { host: string; port: number }): Promise<string>;
  /** Once listening: the origin it listens on, e.g. http://127.0.0.1:8081. */
  readonly listeningOrigin: string;
  /** The server's log (requests, worker and job failures). */
  readonly log: HostLogger;
}
