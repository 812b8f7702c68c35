/**
 * The JSON body parser: Fastify's own (prototype-poisoning safe), plus these
 * rules. A zero-length body is "no body", so `POST …/claim` works whether or not a
 * client sends a Content-Type (whichever it is). A body sent without
 * `Content-Type: application/json` (none, text/plain, …) is a 415 whose detail
 * says so; Fastify's text/plain parser is removed, so a JSON text sent as
 * text/plain is not handed to the schema as a string. Before parsing, one pass over
 * the text (json-text-scan.ts) refuses nesting deeper than MAX_JSON_DEPTH,
 * numbers that would not come back as sent, and poisoning keys, each with a
 * message naming the place. After parsing, text the stores cannot keep
 * identically (NUL, unpaired surrogates; see domain/storable-text.ts) is refused
 * in every string and key.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { taskflowError } from "../../domain/errors.ts";
import { findUnstorableText } from "../../domain/storable-text.ts";
import { UNSUPPORTED_MEDIA_TYPE_DETAIL } from "../errors/error-mapping.ts";
import { scanJsonText } from "./json-text-scan.ts";

export const MAX_JSON_DEPTH = 64;

function unsupportedMediaType(): Error {
  return Object.assign(new Error(UNSUPPORTED_MEDIA_TYPE_DETAIL), { statusCode: 415 });
}

export function installJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser("error", "error");
  app.removeAllContentTypeParsers();
  // Any other (or no) Content-Type: fine without a body, a 415 with one.
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(unsupportedMediaType(), undefined);
  });
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    const text = body as string;
    // Only zero bytes is "no body"; whitespace alone is not a JSON text and is refused.
    if (text.length === 0) return done(null, undefined);
    const problem = scanJsonText(text, MAX_JSON_DEPTH);
    if (problem !== null)
      return done(taskflowError("MalformedJson", { detail: problem }), undefined);
    void parse(req, text, (err, parsed) => {
      if (err) return done(err, undefined);
      const unstorable = findUnstorableText(parsed, "", "body");
      if (unstorable !== null)
        return done(taskflowError("UnstorableText", { detail: unstorable }), undefined);
      done(null, parsed);
    });
  });
}

/**
 * preValidation hook for routes whose body is optional (complete,
 * complete-and-end): no body means `{}`, so the schema can still insist on an
 * object when one is sent.
 */
export function optionalBody(req: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (req.body === undefined) req.body = {};
  done();
}
