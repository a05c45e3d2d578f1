import { FREQUENCY_FORMS, parseFrequency } from './frequency';

describe('parseFrequency', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1w', 604_800_000],
    ['1.5h', 5_400_000],
    ['5 minutes', 300_000],
    ['1 hour', 3_600_000],
    ['2 days', 172_800_000],
    ['10 secs', 10_000],
    ['every 5 minutes', 300_000],
    ['Every 1 Hour', 3_600_000],
    ['  15m  ', 900_000],
  ])('reads %j as %d ms', (text, expected) => {
    expect(parseFrequency(text)).toBe(expected);
  });

  it.each([
    '',
    '5',
    '0s',
    '0 minutes',
    '-5m',
    '0.5s',
    'NaN h',
    'h',
    '5 fortnights',
    '500ms',
    '1y',
    'every',
    '5m and 3s',
    '1e3s',
    `${'9'.repeat(400)}d`,
  ])('refuses %j', (text) => {
    expect(parseFrequency(text)).toBeNull();
  });

  it('describes the accepted forms', () => {
    expect(FREQUENCY_FORMS).toContain('"5 minutes"');
  });
});
