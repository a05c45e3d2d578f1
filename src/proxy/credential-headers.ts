import OAuth from 'oauth-1.0a';
import { createHmac } from 'node:crypto';
import type { StoredCredentials } from '../connections/credentials';
import type { ResolvedIntegration } from '../integrations/integrations.service';
import { interpolateRecord, type TemplateValues } from '../providers/interpolate';

export interface AttachedCredentials {
  readonly headers: Record<string, string>;
  readonly query: Record<string, string>;
}

function templateValues(
  credentials: StoredCredentials,
  connectionConfig: Record<string, unknown>,
): TemplateValues {
  switch (credentials.type) {
    case 'OAUTH2':
      return { connectionConfig, accessToken: credentials.access_token };
    case 'API_KEY':
      return { connectionConfig, apiKey: credentials.apiKey };
    case 'BASIC':
      return { connectionConfig, username: credentials.username, password: credentials.password };
    case 'OAUTH1':
      return { connectionConfig };
  }
}

/**
 * The provider's default headers and query parameters (templates filled with the connection's
 * config and credentials), plus the bearer token for OAuth 2 unless the provider says otherwise.
 */
export function credentialHeaders(
  integration: ResolvedIntegration,
  credentials: StoredCredentials,
  connectionConfig: Record<string, unknown>,
): AttachedCredentials {
  const proxy = integration.provider.proxy;
  const values = templateValues(credentials, connectionConfig);
  const headers = Object.fromEntries(
    Object.entries(interpolateRecord(proxy?.headers ?? {}, values)).map(([name, value]) => [
      name.toLowerCase(),
      value,
    ]),
  );
  const query = interpolateRecord(proxy?.query ?? {}, values);
  if (credentials.type === 'OAUTH2' && headers.authorization === undefined) {
    headers.authorization = `Bearer ${credentials.access_token}`;
  }
  return { headers, query };
}

/**
 * RFC 5849 HMAC-SHA1 signature for one request: consumer key and secret from the integration,
 * token and secret from the connection; form bodies take part in the signature.
 */
export function oauth1Authorization(
  integration: ResolvedIntegration,
  credentials: StoredCredentials,
  method: string,
  url: string,
  formBody: Record<string, string> | undefined,
): string | undefined {
  if (credentials.type !== 'OAUTH1') return undefined;
  const oauth = new OAuth({
    consumer: { key: integration.clientId ?? '', secret: integration.clientSecret() ?? '' },
    signature_method: 'HMAC-SHA1',
    hash_function: (base, key) => createHmac('sha1', key).update(base).digest('base64'),
  });
  const authorization = oauth.authorize(
    { url, method, ...(formBody ? { data: formBody } : {}) },
    { key: credentials.oauth_token, secret: credentials.oauth_token_secret },
  );
  return oauth.toHeader(authorization).Authorization;
}
