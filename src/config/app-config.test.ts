import { ConfigurationError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('gives the local mode its embedded defaults', () => {
    const config = loadConfig('local', {});
    expect(config.database.url).toBeUndefined();
    expect(config.temporal.address).toBeUndefined();
    expect(config.http).toMatchObject({ host: '127.0.0.1', port: 3003 });
    expect(config.temporal).toMatchObject({
      namespace: 'default',
      taskQueue: 'junction',
      devPort: 7233,
    });
  });

  it('lists every problem at once', () => {
    let caught: unknown;
    try {
      loadConfig('api', { PORT: 'eighty', LOG_LEVEL: 'loud', JUNCTION_DEV_SECRET_KEY: 'short' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigurationError);
    const problems = (caught as ConfigurationError).problems.join('\n');
    for (const name of [
      'PORT',
      'LOG_LEVEL',
      'JUNCTION_DEV_SECRET_KEY',
      'ENCRYPTION_KEYS',
      'DATABASE_URL',
      'TEMPORAL_ADDRESS',
    ]) {
      expect(problems).toContain(name);
    }
  });

  it('requires PostgreSQL and Temporal addresses outside the local mode', () => {
    expect(() => loadConfig('worker', { DATABASE_URL: 'postgres://db/junction' })).toThrow(
      /TEMPORAL_ADDRESS/,
    );
    const config = loadConfig('worker', {
      DATABASE_URL: 'postgres://db/junction',
      TEMPORAL_ADDRESS: 'temporal:7233',
      ENCRYPTION_KEYS: 'k1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    });
    expect(config.database.url).toBe('postgres://db/junction');
  });

  it('treats empty strings as absent', () => {
    expect(
      loadConfig('local', { DATABASE_URL: '', TEMPORAL_ADDRESS: ' ' }).database.url,
    ).toBeUndefined();
  });

  it('refuses a database URL of another kind', () => {
    expect(() => loadConfig('local', { DATABASE_URL: 'mysql://db' })).toThrow(/DATABASE_URL/);
  });
});
