/**
 * One engine read for a page: the answer, the error, and a way to read it
 * again after a change. A path of null reads nothing (a page waiting for its
 * parameters). An answer for a path the page has left is dropped.
 */
import { useCallback, useEffect, useState } from "react";
import { engine } from "../../api.ts";

export interface EngineRead<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

export function useEngine<T>(path: string | null): EngineRead<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(path !== null);
  const [round, setRound] = useState(0);
  const reload = useCallback(() => setRound((r) => r + 1), []);

  useEffect(() => {
    if (path === null) return;
    const abort = new AbortController();
    setLoading(true);
    setError(undefined);
    engine<T>(path, { signal: abort.signal })
      .then((d) => setData(d))
      .catch((e: unknown) => {
        if (!abort.signal.aborted) setError(e);
      })
      .finally(() => {
        if (!abort.signal.aborted) setLoading(false);
      });
    return () => abort.abort();
  }, [path, round]);

  return { data, error, loading, reload };
}
