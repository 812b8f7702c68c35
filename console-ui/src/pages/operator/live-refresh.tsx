/**
 * Reads the page's data again on each live event of `topic`, and every FALLBACK_MS as
 * well, while it is rendered (mount it only while needed). The fallback is there because
 * the server's "runs" events watch only the newest 100 runs of each unfinished status: a
 * change to an older run sends no event.
 */
import { useEffect, useRef } from "react";
import { useLive, type LiveTopic } from "../../live.ts";

export const FALLBACK_MS = 5_000;

export function LiveRefresh({ topic, onChange }: { topic: LiveTopic; onChange: () => void }) {
  useLive(topic, onChange);
  const callback = useRef(onChange);
  callback.current = onChange;
  useEffect(() => {
    const timer = setInterval(() => callback.current(), FALLBACK_MS);
    return () => clearInterval(timer);
  }, []);
  return null;
}
