/**
 * Cursor paging (docs/api.md#pagination) as async iteration: follow
 * `nextCursor` until it is `null`. Pages are fetched lazily, one at a time, so
 * breaking out of a `for await` stops fetching.
 */
import type { Page } from "./wire/common.ts";

/** Fetches the page after `cursor` (the first page when undefined). */
export type PageFetcher<T> = (cursor: string | undefined) => Promise<Page<T>>;

/** Every page, starting after `cursor` (default: from the first page). */
export async function* pages<T>(
  fetchPage: PageFetcher<T>,
  cursor?: string,
): AsyncGenerator<Page<T>> {
  let next = cursor;
  for (;;) {
    const page = await fetchPage(next);
    yield page;
    if (page.nextCursor === null) return;
    // A cursor that does not move would loop for ever; the contract says it always moves.
    if (page.nextCursor === next) throw new Error(`paging did not advance (cursor ${next})`);
    next = page.nextCursor;
  }
}

/** Every item of every page, in order. */
export async function* items<T>(fetchPage: PageFetcher<T>, cursor?: string): AsyncGenerator<T> {
  for await (const page of pages(fetchPage, cursor)) yield* page.items;
}
