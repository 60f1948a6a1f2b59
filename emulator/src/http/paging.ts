import { invalid } from './errors.js';

/**
 * `order_by` of E19/E20: a field name, optionally prefixed with `-` (or followed by ` desc`/` asc`)
 * for the direction. Unknown fields are a 422 on `['query', 'order_by']` rather than being ignored.
 */
export function comparator<T>(orderBy: string | undefined, fields: Record<string, (item: T) => string | number | null | undefined>, fallback: string): (a: T, b: T) => number {
  const spec = (orderBy ?? fallback).trim();
  const m = /^(-?)([a-z_]+)(?:\s+(asc|desc))?$/i.exec(spec);
  const key = m?.[2]?.toLowerCase();
  const get = key ? fields[key] : undefined;
  if (!m || !get || (m[1] && m[3])) {
    throw invalid(['query', 'order_by'], `order_by should be one of ${Object.keys(fields).join(', ')}, optionally prefixed with '-' or followed by asc/desc`);
  }
  const sign = m[1] === '-' || m[3]?.toLowerCase() === 'desc' ? -1 : 1;
  return (a, b) => {
    const x = get(a);
    const y = get(b);
    if (x === y) return 0;
    if (x === null || x === undefined) return 1; // missing values last, either direction
    if (y === null || y === undefined) return -1;
    return (x < y ? -1 : 1) * sign;
  };
}

/** The page envelope of E19/E20 (`pages` is 0 when there is nothing). */
export function pageOf<T>(items: T[], page: number, size: number) {
  return { items: items.slice((page - 1) * size, page * size), total: items.length, page, size, pages: Math.ceil(items.length / size) };
}
