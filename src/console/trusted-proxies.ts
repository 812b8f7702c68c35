/**
 * Which peers may speak for a user through the trusted header: the addresses
 * and CIDR blocks of WF_CONSOLE_TRUSTED_PROXIES, matched against the TCP
 * peer's address (never against X-Forwarded-For, which the client writes).
 */
import { BlockList, isIP } from "node:net";

export type ProxyCheck = (remoteAddress: string | undefined) => boolean;

/** Entries are validated by the config (parse-console.ts). */
export function trustedProxies(entries: readonly string[]): ProxyCheck {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = "", prefix] = entry.split("/");
    const type = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (remote) => {
    if (remote === undefined) return false;
    // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d.
    const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remote)?.[1];
    const address = v4 ?? remote;
    const family = isIP(address);
    if (family === 0) return false;
    return list.check(address, family === 6 ? "ipv6" : "ipv4");
  };
}
