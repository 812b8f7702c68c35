/**
 * The client's address, as the login budgets count it. The TCP peer, unless
 * the peer is one of WF_CONSOLE_TRUSTED_PROXIES: then X-Forwarded-For is read
 * from the right, each trusted proxy's entry skipped, and the first address
 * that is not a trusted proxy is the client. What stands left of it was
 * written by the client itself, so it is never read (a client could pick a
 * fresh address per request). Behind the reverse proxy the docs recommend,
 * counting the peer would count the proxy: one budget for every user.
 *
 * An IPv6 client counts by its /64, which one host gets whole: otherwise it
 * could spend a fresh address on every request.
 */
import type { FastifyRequest } from "fastify";
import { isIP } from "node:net";
import type { ProxyCheck } from "./trusted-proxies.ts";

export type ClientAddress = (req: FastifyRequest) => string;

/** How far to read X-Forwarded-For: more hops than any real chain of proxies. */
const MAX_HOPS = 16;

export function clientAddress(fromTrustedProxy: ProxyCheck): ClientAddress {
  return (req) => {
    let address = plain(req.socket.remoteAddress) ?? "unknown";
    if (!fromTrustedProxy(address)) return budgetKey(address);
    const header = req.headers["x-forwarded-for"];
    const hops = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",");
    for (let i = hops.length - 1; i >= 0 && hops.length - i <= MAX_HOPS; i--) {
      const hop = plain(hops[i]);
      // Not an address: written by someone untrusted; the proxy that passed it on counts.
      if (hop === undefined) break;
      address = hop;
      if (!fromTrustedProxy(hop)) break;
    }
    return budgetKey(address);
  };
}

/** An IP address without port, brackets or the IPv4-mapped prefix; undefined if none. */
function plain(raw: string | undefined): string | undefined {
  let s = (raw ?? "").trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed?.[1] !== undefined) s = bracketed[1];
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"));
  s = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(s)?.[1] ?? s;
  return isIP(s) === 0 ? undefined : s;
}

/** IPv4 as it is; IPv6 as its /64 prefix (the first four groups, expanded). */
function budgetKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = "", tail] = address.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = [
    ...left,
    ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"),
    ...right,
  ];
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
