/**
 * The JSON body parser: Fastify's own (prototype-poisoning safe), plus two
 * rules. A zero-length body is "no body", so `POST …/claim` works whether or not a
 * client sends `Content-Type: application/json`. And nesting deeper than
 * MAX_JSON_DEPTH is refused before parsing: schemas like NextAssignment are
 * recursive, and validating a 50,000-level chain would overflow the stack (a
 * 500 for bad input).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { validation } from "../domain/errors.ts";

export const MAX_JSON_DEPTH = 64;

export function installJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    const text = body as string;
    // Only zero bytes is "no body"; whitespace alone is not a JSON text and is refused.
    if (text.length === 0) return done(null, undefined);
    if (nestingExceeds(text, MAX_JSON_DEPTH)) {
      return done(validation(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    void parse(req, text, done);
  });
}

/** One pass over the text, skipping string contents (and their escapes). */
export function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
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
