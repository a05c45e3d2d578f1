import { parseDeployArguments, parseDryrunArguments, UsageError } from './arguments';

const env = { JUNCTION_SECRET_KEY: 'env-key' };

describe('deploy arguments', () => {
  it('defaults to ./integrations, JUNCTION_URL or localhost, and the key from the environment', () => {
    expect(parseDeployArguments([], env, '/work')).toEqual({
      dir: '/work/integrations',
      yes: false,
      target: { url: 'http://localhost:3003', key: 'env-key' },
    });
    expect(
      parseDeployArguments([], { ...env, JUNCTION_URL: 'https://junction.example/' }, '/w').target,
    ).toEqual({ url: 'https://junction.example', key: 'env-key' });
  });

  it('takes flags over the environment', () => {
    expect(
      parseDeployArguments(
        ['--dir', 'scripts', '--yes', '--url', 'http://10.0.0.2:4000', '--key', 'flag-key'],
        env,
        '/work',
      ),
    ).toEqual({
      dir: '/work/scripts',
      yes: true,
      target: { url: 'http://10.0.0.2:4000', key: 'flag-key' },
    });
    expect(parseDeployArguments(['--dir=/abs', '-y'], env, '/work')).toMatchObject({
      dir: '/abs',
      yes: true,
    });
  });

  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['extra'], /deploy takes no arguments/],
    [['--dir'], /argument missing/],
    [['--url', 'not a url'], /is not a URL/],
  ])('refuses %j', (args, message) => {
    expect(() => parseDeployArguments(args, env, '/w')).toThrow(message);
    expect(() => parseDeployArguments(args, env, '/w')).toThrow(UsageError);
  });

  it('needs a secret key', () => {
    expect(() => parseDeployArguments([], {}, '/w')).toThrow(/JUNCTION_SECRET_KEY/);
  });
});

describe('dryrun arguments', () => {
  it('reads the script, the connection and the JSON options', () => {
    expect(
      parseDryrunArguments(
        [
          'issues',
          'conn-1',
          '--integration',
          'github',
          '--checkpoint',
          '{"page":2}',
          '--last-sync-date',
          '2024-05-01T10:00:00+02:00',
          '--json',
        ],
        env,
        '/work',
      ),
    ).toEqual({
      scriptName: 'issues',
      connectionId: 'conn-1',
      integration: 'github',
      input: undefined,
      checkpoint: { page: 2 },
      lastSyncDate: '2024-05-01T08:00:00.000Z',
      dir: '/work/integrations',
      json: true,
      target: { url: 'http://localhost:3003', key: 'env-key' },
    });
    expect(
      parseDryrunArguments(['create-issue', 'c', '--input', '{"title":"x"}'], env, '/w').input,
    ).toEqual({ title: 'x' });
  });

  it.each([
    [[], /a script name and a connection ID/],
    [['issues'], /a script name and a connection ID/],
    [['issues', 'c', 'more'], /a script name and a connection ID/],
    [['issues', 'c', '--input', '{title}'], /--input must be JSON/],
    [['issues', 'c', '--checkpoint', 'nope'], /--checkpoint must be JSON/],
    [['issues', 'c', '--last-sync-date', 'yesterday'], /--last-sync-date must be an ISO 8601/],
  ])('refuses %j', (args, message) => {
    expect(() => parseDryrunArguments(args, env, '/w')).toThrow(message);
  });
});
