/**
 * The title of each task in view: its own, which every task made since the task
 * details landed has. A task made before carries its title (if any) in its
 * referral's vars only, so for those rows alone the referrals are read, once each,
 * after the scrolling stops for a moment; the row shows a fallback meanwhile.
 */
import { useEffect, useState } from "react";
import { engine } from "../../api.ts";
import type { Instance, Task } from "../../wire.ts";

/** Referral id → title (null: it has none). Shared by every list of the page's life. */
const titles = new Map<string, string | null>();
const SETTLE_MS = 120;

/** The interpreter's own definition key, which names no process a person knows. */
const RUN_KEY = "taskflow.definition-run";

export function fallbackName(t: Task): string {
  return t.definitionKey === RUN_KEY ? "Task" : t.definitionKey;
}

export function useTaskTitles(visible: Task[]): (t: Task) => string {
  const [, setRound] = useState(0);
  const untitled = visible.filter((t) => t.title === null);
  const wanted = [...new Set(untitled.map((t) => t.instanceId))].filter((id) => !titles.has(id));
  const key = wanted.join(",");
  useEffect(() => {
    if (key === "") return;
    const abort = new AbortController();
    const timer = setTimeout(() => {
      void Promise.all(
        key.split(",").map(async (id) => {
          try {
            const r = await engine<Instance>(`instances/${id}`, { signal: abort.signal });
            const title = r.vars?.["title"];
            titles.set(id, typeof title === "string" ? title : null);
          } catch {
            // Left out: the row keeps its fallback, and the next render asks again.
          }
        }),
      ).then(() => {
        if (!abort.signal.aborted) setRound((n) => n + 1);
      });
    }, SETTLE_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [key]);
  return (t) => t.title ?? titles.get(t.instanceId) ?? fallbackName(t);
}
