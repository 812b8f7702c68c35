import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCookies, serializeCookie } from "../../../src/console/cookies.ts";

test("parseCookies: pairs, spaces, repeated names (first wins), malformed pairs ignored", () => {
  const c = parseCookies('a=1; tf_session=abc-_DEF ;b=; =x; junk; c="q"; a=2; d=x=y');
  assert.equal(c.get("a"), "1");
  assert.equal(c.get("tf_session"), "abc-_DEF");
  assert.equal(c.get("b"), "");
  assert.equal(c.has("c"), false, "a quoted value is not one of ours");
  assert.equal(c.get("d"), "x=y");
  assert.equal(c.has(""), false);
  assert.equal(parseCookies(undefined).size, 0);
  assert.equal(parseCookies(["x=1", "y=2"]).get("y"), "2");
  assert.equal(parseCookies(`a=${"x".repeat(20_000)}`).size, 0, "an oversized header is ignored");
});

test("serializeCookie: flags in order, deletion with Max-Age=0 and a past Expires", () => {
  const base = { path: "/console", httpOnly: true, secure: true, sameSite: "Lax" as const };
  assert.equal(
    serializeCookie("tf_session", "tok", { ...base, maxAgeSeconds: 900 }),
    "tf_session=tok; Path=/console; Max-Age=900; HttpOnly; Secure; SameSite=Lax",
  );
  assert.equal(
    serializeCookie("tf_csrf", "", { ...base, httpOnly: false, secure: false, maxAgeSeconds: 0 }),
    "tf_csrf=; Path=/console; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax",
  );
  assert.throws(() => serializeCookie("tf_x", "a;b", { ...base, maxAgeSeconds: 1 }));
  assert.throws(() => serializeCookie("bad name", "a", { ...base, maxAgeSeconds: 1 }));
  assert.throws(() => serializeCookie("x", "a", { ...base, maxAgeSeconds: -1 }));
});

test("parseCookies reads back what serializeCookie writes", () => {
  const value = "Zm9vYmFyLWJhei1xdXV4_-0123456789";
  const set = serializeCookie("tf_refresh", value, {
    path: "/console",
    httpOnly: true,
    secure: false,
    sameSite: "Lax",
    maxAgeSeconds: 60,
  });
  const pair = set.split(";")[0] ?? "";
  assert.equal(parseCookies(`other=1; ${pair}`).get("tf_refresh"), value);
});
