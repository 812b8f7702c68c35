import { isIPv6 } from "node:net";
import { InvalidValue } from "./config-error.ts";
import type { ListenAddress } from "./config.ts";

/** ":port" listens on every IPv4 interface, like Go's net.Listen. */
const ANY_HOST = "0.0.0.0";
const HOSTNAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;

/**
 * Parses a listen address: "host:port", ":port" or "[ipv6]:port" (or an object
 * { host, port } from a file or code). Port 0 is allowed: the OS picks one,
 * which is what tests want.
 */
export function parseAddr(value: unknown): ListenAddress {
  if (typeof value === "object" && value !== null) return fromObject(value);
  if (typeof value !== "string") throw new InvalidValue('must be a string "host:port"');
  const m = /^(\[[^\]]*\]|[^:[\]]*):([^:]*)$/.exec(value.trim());
  if (!m) throw new InvalidValue(`${JSON.stringify(value)} is not host:port`);
  const rawHost = m[1] ?? "";
  const host = rawHost.startsWith("[") ? rawHost.slice(1, -1) : rawHost;
  if (rawHost.startsWith("[") ? !isIPv6(host) : host !== "" && !HOSTNAME.test(host)) {
    throw new InvalidValue(`${JSON.stringify(value)} is not host:port (bad host)`);
  }
  return { host: host === "" ? ANY_HOST : host, port: parsePort(value, m[2] ?? "") };
}

/** An address that may be off: "" or null is no listener (WF_WORKER_HEALTH_ADDR). */
export function parseOptionalAddr(value: unknown): ListenAddress | null {
  if (value === null || value === "") return null;
  return parseAddr(value);
}

function parsePort(value: string, raw: string): number {
  const port = /^[0-9]{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new InvalidValue(`${JSON.stringify(value)} is not host:port (port must be 0–65535)`);
  }
  return port;
}

function fromObject(value: object): ListenAddress {
  const { host, port } = value as Partial<Record<"host" | "port", unknown>>;
  const h = host === undefined ? "" : host;
  if (typeof h !== "string" || typeof port !== "number" || !Number.isInteger(port)) {
    throw new InvalidValue('must be "host:port" or { host: string, port: integer }');
  }
  const literal = isIPv6(h) ? `[${h}]` : h;
  return parseAddr(`${literal}:${port}`);
}
