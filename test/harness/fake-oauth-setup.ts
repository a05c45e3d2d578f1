import type { Junction } from '../../src/client';
import { FakeOAuth2Provider } from '../fixtures/fake-oauth2-provider';

export const CLIENT_ID = 'client-123';
export const CLIENT_SECRET = 'client-secret-must-stay-hidden';

/** A fake OAuth 2 provider, registered as a custom provider with an integration using it. */
export async function fakeOAuthIntegration(
  client: Junction,
  integrationId: string,
  options: { tokenAuth?: 'body' | 'basic'; bufferSeconds?: number } = {},
): Promise<FakeOAuth2Provider> {
  const fake = await new FakeOAuth2Provider({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
  }).start();
  const providerName = `fake-${integrationId}`;
  await client.putProvider(providerName, {
    display_name: 'Fake OAuth 2 provider',
    auth_mode: 'OAUTH2',
    authorization_url: `${fake.url}/oauth/authorize`,
    token_url: `${fake.url}/oauth/token`,
    token_request_auth_method: options.tokenAuth ?? 'body',
    ...(options.bufferSeconds === undefined
      ? {}
      : { token_expiry_buffer_seconds: options.bufferSeconds }),
    proxy: { base_url: fake.url },
    docs: 'https://example.com/docs',
  });
  await client.createIntegration({
    provider: providerName,
    provider_config_key: integrationId,
    oauth_client_id: CLIENT_ID,
    oauth_client_secret: CLIENT_SECRET,
    oauth_scopes: 'read,write',
  });
  return fake;
}
