/** Parses an ISO date-time; an offset-less value is read as UTC (as the service does). */
export function parseTime(value: string): number {
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`);
}

/** Resolves after `ms`: the emulator's one sleep (injected latency, polling, pauses between batches). */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `promise` to settle, at most `ms`; never rejects (what it waits for is best effort, e.g. closing). */
export async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.then(() => undefined, () => undefined), new Promise<void>((resolve) => { timer = setTimeout(resolve, ms); })]);
  clearTimeout(timer);
}
