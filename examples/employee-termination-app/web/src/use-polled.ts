/**
 * Data that other people change (a colleague completes a task, HR starts a
 * termination): read now, then every two seconds, and again on demand.
 */
import { useCallback, useEffect, useState } from "react";
import { messageOf } from "./api.ts";

export function usePolled<T>(read: () => Promise<T>): {
  data: T | undefined;
  error: string | null;
  reload: () => void;
} {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => {
    read()
      .then((d) => {
        setData(d);
        setError(null);
      })
      .catch((e: unknown) => setError(messageOf(e)));
  }, [read]);
  useEffect(() => {
    reload();
    const timer = setInterval(reload, 2000);
    return () => clearInterval(timer);
  }, [reload]);
  return { data, error, reload };
}
