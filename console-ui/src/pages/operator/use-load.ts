/**
 * Reads data for a page and reads it again on demand (a live event, an action done).
 * A reload keeps the last data on screen while it runs, so a live page does not flicker;
 * an answer that arrives after a newer request started is dropped.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { problemText } from "../../problem-text.tsx";

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const loader = useRef(load);
  loader.current = load;

  const reload = useCallback(() => {
    const ticket = ++latest.current;
    setLoading(true);
    loader
      .current()
      .then((d) => {
        if (ticket !== latest.current) return;
        setData(d);
        setError(null);
      })
      .catch((e: unknown) => {
        if (ticket === latest.current) setError(problemText(e));
      })
      .finally(() => {
        if (ticket === latest.current) setLoading(false);
      });
  }, []);

  // A new key (other filters, another run) is another read; the data of the old key goes.
  useEffect(() => {
    setData(null);
    reload();
  }, [key, reload]);

  return { data, error, loading, reload };
}
