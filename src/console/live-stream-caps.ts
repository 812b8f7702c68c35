/**
 * How many live-event streams one login and one user may hold open on a node. Without a
 * bound, one plain user's script could open hundreds: each holds a connection and a
 * login check per second, and (before live-feeds.ts) a poll of the engine, spending the
 * budget the Console shares with every user and with the host's backend (one API key,
 * one tenant). A page opens one stream, so the caps leave room for many tabs: a browser
 * keeps at most 6 HTTP/1.1 connections per site, which is one login's cap; the user's cap
 * allows a second browser or device. Over a cap the stream is refused (429).
 */
export interface StreamCapLimits {
  perLogin: number;
  perUser: number;
}

export const STREAM_CAPS: StreamCapLimits = { perLogin: 6, perUser: 12 };

export type StreamSlot = { release: () => void } | { refused: "login" | "user" };

export class LiveStreamCaps {
  private readonly byLogin = new Map<string, number>();
  private readonly byUser = new Map<string, number>();

  constructor(private readonly limits: StreamCapLimits = STREAM_CAPS) {}

  /** A slot for one more stream of the login (its refresh family) and user, or why not. */
  take(userId: string, loginId: string): StreamSlot {
    const login = this.byLogin.get(loginId) ?? 0;
    const user = this.byUser.get(userId) ?? 0;
    if (login >= this.limits.perLogin) return { refused: "login" };
    if (user >= this.limits.perUser) return { refused: "user" };
    this.byLogin.set(loginId, login + 1);
    this.byUser.set(userId, user + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        decrement(this.byLogin, loginId);
        decrement(this.byUser, userId);
      },
    };
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 1) - 1;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}
