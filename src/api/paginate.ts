/** A page of the spec's envelope. */
export interface Page<T> {
  items: T[];
  page: number;
  pages: number;
}

/** Iterates over every item of every page, from `first` (default 1) to the last page the server reports. */
export async function* paginate<T>(fetchPage: (page: number) => Promise<Page<T>>, first = 1): AsyncGenerator<T> {
  for (let page = first; ; page++) {
    const result = await fetchPage(page);
    yield* result.items;
    // An empty page also ends the walk, so a server that miscounts `pages` cannot loop forever.
    if (page >= result.pages || result.items.length === 0) return;
  }
}
