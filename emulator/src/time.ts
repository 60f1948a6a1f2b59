/** Parses an ISO date-time; an offset-less value is read as UTC (as the service does). */
export function parseTime(value: string): number {
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`);
}
