/**
 * Where the SQL and Redis one-time codes keep the code of a (key prefix,
 * subject, purpose): a SHA-256 of the three. JSON of the three keeps
 * ("a:b", "c") and ("a", "b:c") apart; the hash keeps the key at 64
 * characters where subject and purpose may be 512 each (a MariaDB key holds
 * 3,072 bytes, 768 utf8mb4 characters), and keeps people's e-mail addresses
 * out of Redis key names.
 */
import { sha256Hex } from "./secrets.ts";

export function codeSlot(keyPrefix: string, subject: string, purpose: string): string {
  return sha256Hex(JSON.stringify([keyPrefix, subject, purpose]));
}
