/** A task with its referral (where a definition's title, form and actions live). */
import { useCallback, useEffect, useState } from "react";
import { engine } from "../../api.ts";
import type { Instance, Task } from "../../wire.ts";

export interface LoadedTask {
  task: Task | null;
  referral: Instance | null;
  error: string | null;
  reload: () => void;
  /** After a claim or release: the task as the engine answered. */
  setTask: (t: Task) => void;
}

export function useTask(id: string): LoadedTask {
  const [task, setTask] = useState<Task | null>(null);
  const [referral, setReferral] = useState<Instance | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(
    async (signal: AbortSignal) => {
      try {
        const t = await engine<Task>(`tasks/${id}`, { signal });
        const r = await engine<Instance>(`instances/${t.instanceId}`, { signal });
        setTask(t);
        setReferral(r);
        setError(null);
      } catch (e) {
        if (!signal.aborted) setError(e instanceof Error ? e.message : String(e));
      }
    },
    [id],
  );
  const [round, setRound] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    void load(abort.signal);
    return () => abort.abort();
  }, [load, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { task, referral, error, reload, setTask };
}
