/**
 * A list read page by page through the engine's keyset cursor (`nextCursor`). The
 * first page shows as soon as it arrives; later pages are fetched when the view asks.
 * A reload reads the first page again with room for a page more than is shown (up to
 * the engine's 500), so a live update neither shrinks a list the user has scrolled down
 * nor hides a task that arrived at its end.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { engine } from "../../api.ts";
import type { Page } from "../../wire.ts";

const MAX_LIMIT = 500;

export interface CursorList<T> {
  items: T[];
  /** True while there are pages not read yet. */
  hasMore: boolean;
  loading: boolean;
  error: string | null;
  loadMore: () => void;
  reload: () => void;
}

function withQuery(path: string, query: Record<string, string>): string {
  const sep = path.includes("?") ? "&" : "?";
  return path + sep + new URLSearchParams(query).toString();
}

export function useCursorList<T>(path: string, pageSize: number): CursorList<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  // Answers to an older path or reload are dropped: only the latest request may write.
  const generation = useRef(0);
  const busy = useRef(false);
  const shown = useRef(0);
  shown.current = items.length;

  const fetchPage = useCallback(
    async (query: Record<string, string>, append: boolean) => {
      const mine = ++generation.current;
      busy.current = true;
      setLoading(true);
      try {
        const page = await engine<Page<T>>(withQuery(path, query));
        if (mine !== generation.current) return;
        setItems((old) => (append ? [...old, ...page.items] : page.items));
        setCursor(page.nextCursor);
        setError(null);
      } catch (e) {
        if (mine === generation.current) setError(e instanceof Error ? e.message : String(e));
      } finally {
        if (mine === generation.current) {
          busy.current = false;
          setLoading(false);
        }
      }
    },
    [path],
  );

  useEffect(() => {
    setItems([]);
    setCursor(null);
    void fetchPage({ limit: String(pageSize) }, false);
  }, [fetchPage, pageSize]);

  const loadMore = useCallback(() => {
    if (busy.current || cursor === null) return;
    void fetchPage({ limit: String(pageSize), cursor }, true);
  }, [cursor, fetchPage, pageSize]);

  const reload = useCallback(() => {
    const limit = Math.min(MAX_LIMIT, shown.current + pageSize);
    void fetchPage({ limit: String(limit) }, false);
  }, [fetchPage, pageSize]);

  return { items, hasMore: cursor !== null, loading, error, loadMore, reload };
}
