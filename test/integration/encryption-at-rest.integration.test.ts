import { generateEncryptionKey } from '../../src/crypto/secret-box';
import { createTestDatabase, queryDatabase, type TestDatabase } from '../harness/databases';
import { runJunctionCommand } from '../harness/junction-process';
import { startTestApp, TEST_ENCRYPTION_KEYS, type TestApp } from '../harness/test-app';

const SECRETS = [
  'plain-access-token-1',
  'plain-refresh-token-1',
  'plain-client-secret-1',
  'plain-env-value-1',
  'plain-api-key-1',
  'plain-password-1',
  'plain-oauth1-secret',
];

async function dumpTables(url: string): Promise<string> {
  const tables = ['integrations', 'connections', 'environment_variables', 'environments'];
  const dumps = await Promise.all(
    tables.map((table) => queryDatabase(url, `SELECT * FROM ${table}`)),
  );
  return JSON.stringify(dumps);
}

describe('encryption at rest', () => {
  let app: TestApp;
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    app = await startTestApp({ database });
    const client = app.client();
    await client.createIntegration({
      provider: 'github',
      provider_config_key: 'gh',
      oauth_client_id: 'id',
      oauth_client_secret: SECRETS[2],
    });
    await client.createIntegration({ provider: 'stripe', provider_config_key: 'stripe' });
    await client.createIntegration({ provider: 'twilio', provider_config_key: 'twilio' });
    await client.createIntegration({
      provider: 'trello',
      provider_config_key: 'trello',
      oauth_client_id: 'k',
      oauth_client_secret: 's',
    });
    await client.importConnection({
      provider_config_key: 'gh',
      connection_id: 'c',
      access_token: SECRETS[0],
      refresh_token: SECRETS[1],
      expires_in: 3600,
    });
    await client.importConnection({
      provider_config_key: 'stripe',
      connection_id: 'c',
      api_key: SECRETS[4],
    });
    await client.importConnection({
      provider_config_key: 'twilio',
      connection_id: 'c',
      username: 'user',
      password: SECRETS[5],
    });
    await client.importConnection({
      provider_config_key: 'trello',
      connection_id: 'c',
      oauth_token: 't',
      oauth_token_secret: SECRETS[6],
    });
    await client.setEnvironmentVariables([{ name: 'TOKEN', value: SECRETS[3] ?? '' }]);
  });
  afterAll(async () => {
    await app.stop();
    await database.drop();
  });

  it('finds no plaintext secret in the tables, and no secret key either', async () => {
    const dump = await dumpTables(app.database.url);
    for (const secret of [...SECRETS, app.devKey, app.prodKey]) expect(dump).not.toContain(secret);
    expect(dump).toContain('v1.test1.');
  });

  it('re-encrypts everything under a new key with the operator command, old rows readable meanwhile', async () => {
    const keys = { devKey: app.devKey, prodKey: app.prodKey };
    await app.stop();
    const rotatedKeys = `${generateEncryptionKey('test2')},${TEST_ENCRYPTION_KEYS}`;
    const env = { DATABASE_URL: app.database.url, ENCRYPTION_KEYS: rotatedKeys, LOG_LEVEL: 'warn' };
    const result = runJunctionCommand(['keys', 'reencrypt'], env);
    expect(result.output).toMatch(/Re-encrypted 7 value/);
    expect(result.status).toBe(0);

    const dump = await dumpTables(app.database.url);
    expect(dump).not.toContain('v1.test1.');
    expect(dump).toContain('v1.test2.');

    // Only the new key is needed now.
    app = await startTestApp({
      database,
      keys,
      env: { ENCRYPTION_KEYS: rotatedKeys.split(',')[0] ?? '' },
    });
    const connection = await app.client().getConnection('gh', 'c', false, true);
    expect(connection.credentials).toMatchObject({
      access_token: SECRETS[0],
      refresh_token: SECRETS[1],
    });
    expect(await app.client().getEnvironmentVariables()).toEqual([
      { name: 'TOKEN', value: SECRETS[3] },
    ]);
    expect(await app.client().getIntegration('gh', true)).toMatchObject({
      client_secret: SECRETS[2],
    });
  });
});
