/** Statuses retried by default: rate limiting and server errors; never 2xx. */
export function isRetriableStatus(status: number, extra: ReadonlySet<number>): boolean {
  if (status >= 200 && status < 300) return false;
  return status === 429 || status >= 500 || extra.has(status);
}

/**
 * How long the upstream asked us to wait, in ms: `Retry-After` (seconds or an HTTP date), else
 * the provider's rate-limit reset header (seconds to wait, or an epoch time in seconds).
 */
export function requestedWaitMs(
  headers: Record<string, string | string[] | undefined>,
  resetHeader: string | undefined,
  now = Date.now(),
): number | undefined {
  const first = (name: string): string | undefined => {
    const value = headers[name.toLowerCase()];
    return Array.isArray(value) ? value[0] : value;
  };
  const retryAfter = first('retry-after');
  if (retryAfter !== undefined) {
    if (/^\d+(\.\d+)?$/.test(retryAfter.trim())) return Number(retryAfter) * 1000;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = resetHeader ? first(resetHeader) : undefined;
  if (reset !== undefined && /^\d+(\.\d+)?$/.test(reset.trim())) {
    const value = Number(reset);
    // Values past 2001 in epoch seconds are times, smaller ones are durations.
    return value > 1_000_000_000 ? Math.max(0, value * 1000 - now) : value * 1000;
  }
  return undefined;
}
