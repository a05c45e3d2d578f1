import { Inject, Injectable } from '@nestjs/common';
import axios, { isAxiosError } from 'axios';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import type { ResolvedIntegration } from '../integrations/integrations.service';
import { interpolateUrl } from '../providers/interpolate';
import type { OAuth2Credentials } from './credentials';

/** The provider answered a refresh with an error, or could not be reached. */
export class TokenRefreshError extends Error {
  constructor(
    message: string,
    readonly providerStatus: number | undefined,
    readonly providerBody: unknown,
  ) {
    super(message);
  }
}

function describeProviderError(status: number | undefined, body: unknown): string {
  if (body && typeof body === 'object') {
    const { error, error_description: description } = body as {
      error?: unknown;
      error_description?: unknown;
    };
    if (typeof error === 'string')
      return typeof description === 'string' ? `${error}: ${description}` : error;
  }
  return status === undefined ? 'no answer' : `HTTP ${status}`;
}

/** Calls a provider's token endpoint with the refresh-token grant (RFC 6749 section 6). */
@Injectable()
export class OAuth2TokenClient {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async refresh(
    integration: ResolvedIntegration,
    connectionConfig: Record<string, unknown>,
    current: OAuth2Credentials,
  ): Promise<OAuth2Credentials> {
    const { provider } = integration;
    if (!provider.token_url)
      throw new TokenRefreshError(
        `Provider ${provider.name} has no token_url`,
        undefined,
        undefined,
      );
    if (!current.refresh_token)
      throw new TokenRefreshError('The connection has no refresh token', undefined, undefined);
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: current.refresh_token,
    });
    for (const [name, value] of Object.entries(provider.refresh_params ?? {}))
      form.set(name, value);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (integration.clientId) {
      if (provider.token_request_auth_method === 'basic') {
        const pair = `${encodeURIComponent(integration.clientId)}:${encodeURIComponent(integration.clientSecret() ?? '')}`;
        headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
      } else {
        form.set('client_id', integration.clientId);
        const clientSecret = integration.clientSecret();
        if (clientSecret) form.set('client_secret', clientSecret);
      }
    }
    let response;
    try {
      response = await axios.post<unknown>(
        interpolateUrl(provider.token_url, { connectionConfig }),
        form.toString(),
        {
          headers,
          timeout: this.config.credentials.tokenRequestTimeoutMs,
          validateStatus: () => true,
          responseType: 'json',
        },
      );
    } catch (error) {
      const reason = isAxiosError(error) ? (error.code ?? error.message) : String(error);
      throw new TokenRefreshError(
        `The token endpoint of ${provider.name} could not be reached: ${reason}`,
        undefined,
        undefined,
      );
    }
    const body = parseBody(response.data) ?? {};
    const accessToken = body.access_token;
    if (
      response.status < 200 ||
      response.status >= 300 ||
      typeof accessToken !== 'string' ||
      accessToken === ''
    ) {
      throw new TokenRefreshError(
        `${provider.name} refused the token refresh: ${describeProviderError(response.status, body)}`,
        response.status,
        Object.keys(body).length > 0 ? body : response.data,
      );
    }
    const refreshToken =
      typeof body.refresh_token === 'string' && body.refresh_token !== ''
        ? body.refresh_token
        : current.refresh_token;
    const expiresIn = Number(body.expires_in);
    const expiresAt =
      Number.isFinite(expiresIn) && expiresIn > 0
        ? new Date(Date.now() + expiresIn * 1000).toISOString()
        : undefined;
    return {
      type: 'OAUTH2',
      access_token: accessToken,
      refresh_token: refreshToken,
      ...(expiresAt ? { expires_at: expiresAt } : {}),
      raw: { ...body, refresh_token: refreshToken },
    };
  }
}

/** Some providers answer form-encoded even when asked for JSON. */
function parseBody(data: unknown): Record<string, unknown> | undefined {
  if (data && typeof data === 'object' && !Array.isArray(data))
    return data as Record<string, unknown>;
  if (typeof data === 'string' && data.includes('='))
    return Object.fromEntries(new URLSearchParams(data));
  return undefined;
}
