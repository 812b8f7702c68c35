/**
 * Live updates over server-sent events (GET /console/api/events). The server sends an
 * event named for what changed ("inbox", "runs") and the page reads its data again; no
 * data travels on the stream, so what a page shows always comes from the same API calls.
 * EventSource reconnects by itself after a drop.
 */
import { useEffect, useRef } from "react";

export type LiveTopic = "inbox" | "runs" | "fences";

/** `group`: for the inbox, a group tab's group, watched too (the open directory names none). */
export function useLive(topic: LiveTopic, onChange: () => void, group?: string): void {
  const callback = useRef(onChange);
  callback.current = onChange;
  useEffect(() => {
    const query = group === undefined ? "" : `&group=${encodeURIComponent(group)}`;
    const source = new EventSource(`/console/api/events?topic=${topic}${query}`);
    const listener = () => callback.current();
    source.addEventListener(topic, listener);
    return () => {
      source.removeEventListener(topic, listener);
      source.close();
    };
  }, [topic, group]);
}
