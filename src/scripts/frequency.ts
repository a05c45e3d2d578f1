import ms from 'ms';

/** What `parseFrequency` accepts, for error messages. */
export const FREQUENCY_FORMS =
  'a positive number and a unit of seconds, minutes, hours, days or weeks, ' +
  'e.g. "30s", "5m", "1h", "1d", "5 minutes", "2 days" or "every 5 minutes"';

/** Shortest interval accepted: a sync every few milliseconds would only hammer the provider. */
export const MINIMUM_FREQUENCY_MS = 1000;

// The unit is required (ms reads a bare number as milliseconds) and milliseconds and years are
// left out: neither is a sensible interval between runs.
const FORM =
  /^(?:every\s+)?(\d+(?:\.\d+)?)\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?)$/i;

/**
 * Milliseconds of a duration such as `30s`, `5 minutes` or `every 2 hours`, or null when the
 * text is not one of `FREQUENCY_FORMS` or is shorter than a second. The same `ms` parser
 * Temporal uses for its duration strings does the arithmetic.
 */
export function parseFrequency(text: string): number | null {
  // ms throws past 100 characters; no sensible frequency is that long.
  const match = text.length <= 100 ? FORM.exec(text.trim()) : null;
  if (!match) return null;
  const value = ms(`${match[1]} ${match[2]}`);
  if (!Number.isFinite(value)) return null;
  const milliseconds = Math.round(value);
  return milliseconds >= MINIMUM_FREQUENCY_MS ? milliseconds : null;
}
