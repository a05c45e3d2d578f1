import { InvalidRequestError } from '../common/errors/domain-error';
import type { FieldError } from '../common/errors/error-codes';
import type { AuthMode, ProviderDefinition } from '../providers/provider.types';
import type { StoredCredentials } from './credentials';
import type { ImportConnectionDto } from './dto/import-connection.dto';

type CredentialField =
  | 'access_token'
  | 'refresh_token'
  | 'expires_at'
  | 'expires_in'
  | 'oauth_token'
  | 'oauth_token_secret'
  | 'username'
  | 'password'
  | 'api_key';

const FIELDS: Readonly<
  Record<AuthMode, { required: readonly CredentialField[]; optional: readonly CredentialField[] }>
> = {
  OAUTH2: { required: ['access_token'], optional: ['refresh_token', 'expires_at', 'expires_in'] },
  OAUTH1: { required: ['oauth_token', 'oauth_token_secret'], optional: [] },
  API_KEY: { required: ['api_key'], optional: [] },
  BASIC: { required: ['username', 'password'], optional: [] },
};

const ALL_FIELDS: readonly CredentialField[] = [
  'access_token',
  'refresh_token',
  'expires_at',
  'expires_in',
  'oauth_token',
  'oauth_token_secret',
  'username',
  'password',
  'api_key',
];

export interface ImportedCredentials {
  readonly credentials: StoredCredentials;
  readonly expiresAt: Date | null;
}

/**
 * Checks an import body against the provider's auth mode (every missing or foreign field
 * listed) and builds what is stored. `expires_at` wins over `expires_in`.
 */
export function credentialsFromImport(
  body: ImportConnectionDto,
  provider: ProviderDefinition,
  now = Date.now(),
): ImportedCredentials {
  const mode = provider.auth_mode;
  const { required, optional } = FIELDS[mode];
  const errors: FieldError[] = [];
  for (const field of required) {
    if (body[field] === undefined)
      errors.push({ path: field, message: `${field} is required for ${mode} connections` });
  }
  for (const field of ALL_FIELDS) {
    if (body[field] !== undefined && !required.includes(field) && !optional.includes(field)) {
      errors.push({ path: field, message: `${field} does not apply to ${mode} connections` });
    }
  }
  const config = body.connection_config ?? {};
  for (const key of provider.connection_config_keys ?? []) {
    const value = config[key];
    if (typeof value !== 'string' || value === '') {
      errors.push({
        path: `connection_config.${key}`,
        message: `connection_config.${key} is required by provider ${provider.name}`,
      });
    }
  }
  if (errors.length > 0) {
    throw new InvalidRequestError(
      `Invalid ${mode} connection for provider "${provider.name}": ${errors.map((error) => error.message).join('; ')}`,
      errors,
    );
  }
  return build(body, mode, now);
}

function build(body: ImportConnectionDto, mode: AuthMode, now: number): ImportedCredentials {
  switch (mode) {
    case 'OAUTH2': {
      const expiresAt = body.expires_at
        ? new Date(body.expires_at)
        : body.expires_in
          ? new Date(now + body.expires_in * 1000)
          : null;
      const accessToken = body.access_token as string;
      return {
        expiresAt,
        credentials: {
          type: 'OAUTH2',
          access_token: accessToken,
          ...(body.refresh_token ? { refresh_token: body.refresh_token } : {}),
          ...(expiresAt ? { expires_at: expiresAt.toISOString() } : {}),
          raw: {
            access_token: accessToken,
            token_type: 'bearer',
            ...(body.refresh_token ? { refresh_token: body.refresh_token } : {}),
            ...(expiresAt ? { expires_at: expiresAt.toISOString() } : {}),
          },
        },
      };
    }
    case 'OAUTH1':
      return {
        expiresAt: null,
        credentials: {
          type: 'OAUTH1',
          oauth_token: body.oauth_token as string,
          oauth_token_secret: body.oauth_token_secret as string,
          raw: { oauth_token: body.oauth_token, oauth_token_secret: body.oauth_token_secret },
        },
      };
    case 'API_KEY':
      return { expiresAt: null, credentials: { type: 'API_KEY', apiKey: body.api_key as string } };
    case 'BASIC':
      return {
        expiresAt: null,
        credentials: {
          type: 'BASIC',
          username: body.username as string,
          password: body.password as string,
        },
      };
  }
}
