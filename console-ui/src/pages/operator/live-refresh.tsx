/** Reads the page's data again on each live event of `topic` while it is rendered (mount it only while needed). */
import { useLive, type LiveTopic } from "../../live.ts";

export function LiveRefresh({ topic, onChange }: { topic: LiveTopic; onChange: () => void }) {
  useLive(topic, onChange);
  return null;
}
