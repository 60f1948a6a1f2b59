/** A page of the spec's envelope (`pages` may be null or absent: a service that does not count). */
export interface Page<T> {
  items: T[];
  page: number;
  size?: number;
  pages?: number | null | undefined;
}

/**
 * Iterates over every item of every page, from `first` (default 1) to the last page the server
 * reports; when it reports no `pages`, to the first page shorter than its `size` (or empty).
 */
export async function* paginate<T>(fetchPage: (page: number) => Promise<Page<T>>, first = 1): AsyncGenerator<T> {
  for (let page = first; ; page++) {
    const result = await fetchPage(page);
    yield* result.items;
    // An empty page also ends the walk, so a server that miscounts `pages` cannot loop forever.
    if (result.items.length === 0) return;
    if (typeof result.pages === 'number' ? page >= result.pages : result.size !== undefined && result.items.length < result.size) return;
  }
}
