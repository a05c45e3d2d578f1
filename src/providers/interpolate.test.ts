import {
  interpolate,
  interpolateRecord,
  interpolateUrl,
  InvalidTemplateValueError,
  MissingTemplateValueError,
} from './interpolate';
import { TemplateSyntaxError } from './template';

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('interpolate', () => {
  it('fills credentials into headers and query values', () => {
    expect(interpolate('Bearer ${apiKey}', { apiKey: 'sk_123' })).toBe('Bearer sk_123');
    expect(interpolate('Token token=${apiKey}', { apiKey: 'pd' })).toBe('Token token=pd');
    expect(interpolate('${accessToken}', { accessToken: 'shpat_1' })).toBe('shpat_1');
    expect(
      interpolateRecord(
        {
          'X-Algolia-Application-Id': '${connectionConfig.app_id}',
          'X-Algolia-API-Key': '${apiKey}',
        },
        { apiKey: 'key', connectionConfig: { app_id: 'APP1' } },
      ),
    ).toEqual({ 'X-Algolia-Application-Id': 'APP1', 'X-Algolia-API-Key': 'key' });
    expect(interpolateRecord({ api_key: '${apiKey}' }, { apiKey: 'pdl' })).toEqual({
      api_key: 'pdl',
    });
  });

  it('gives HTTP Basic its base64 token, allowing an empty password', () => {
    const header = 'Basic ${base64(username:password)}';
    expect(interpolate(header, { username: 'AC123', password: 's3cret' })).toBe(
      `Basic ${Buffer.from('AC123:s3cret').toString('base64')}`,
    );
    expect(interpolate(header, { username: 'api-key', password: '' })).toBe(
      `Basic ${Buffer.from('api-key:').toString('base64')}`,
    );
    expect(interpolate('${username}/${password}', { username: 'u', password: 'p' })).toBe('u/p');
  });

  it('lists every missing value', () => {
    const error = caught(() =>
      interpolateRecord(
        {
          Authorization: 'Basic ${base64(username:password)}',
          'X-Site': '${connectionConfig.site}',
          'X-Key': '${apiKey}',
        },
        { connectionConfig: { site: '' } },
      ),
    );
    expect(error).toBeInstanceOf(MissingTemplateValueError);
    expect((error as MissingTemplateValueError).missing).toEqual([
      'username',
      'password',
      'connectionConfig.site',
      'apiKey',
    ]);
    expect((error as Error).message).toMatch(/username, password, connectionConfig\.site, apiKey/);
  });

  it('refuses values that would inject header lines', () => {
    expect(() => interpolate('${apiKey}', { apiKey: 'key\r\nX-Evil: 1' })).toThrow(
      InvalidTemplateValueError,
    );
  });

  it('refuses templates with unknown placeholders', () => {
    expect(() => interpolate('${secret}', {})).toThrow(TemplateSyntaxError);
  });

  it('accepts numbers and booleans from connection_config, not objects', () => {
    expect(interpolate('${connectionConfig.n}', { connectionConfig: { n: 42 } })).toBe('42');
    expect(() =>
      interpolate('${connectionConfig.n}', { connectionConfig: { n: { a: 1 } } }),
    ).toThrow(/connectionConfig\.n must be a string/);
  });
});

describe('interpolateUrl', () => {
  it('fills host labels and path segments', () => {
    expect(
      interpolateUrl('https://${connectionConfig.subdomain}.zendesk.com/api/v2', {
        connectionConfig: { subdomain: 'acme' },
      }),
    ).toBe('https://acme.zendesk.com/api/v2');
    expect(
      interpolateUrl('https://api.${connectionConfig.site}', {
        connectionConfig: { site: 'datadoghq.eu' },
      }),
    ).toBe('https://api.datadoghq.eu');
    expect(
      interpolateUrl('https://api.atlassian.com/ex/jira/${connectionConfig.cloud_id}', {
        connectionConfig: { cloud_id: '1324a887-45db-1bf4-1e99-ef0ff456d421' },
      }),
    ).toBe('https://api.atlassian.com/ex/jira/1324a887-45db-1bf4-1e99-ef0ff456d421');
  });

  it('percent-encodes path values so they stay one segment', () => {
    expect(
      interpolateUrl('https://api.example.com/company/${connectionConfig.realm_id}/x', {
        connectionConfig: { realm_id: '../../admin?x=1#y' },
      }),
    ).toBe('https://api.example.com/company/..%2F..%2Fadmin%3Fx%3D1%23y/x');
    expect(() =>
      interpolateUrl('https://api.example.com/company/${connectionConfig.realm_id}', {
        connectionConfig: { realm_id: '..' },
      }),
    ).toThrow(InvalidTemplateValueError);
  });

  it.each(['evil.com/', 'a@b', 'evil.com:443', 'evil.com?', 'evil.com#', 'a b'])(
    'refuses %p as part of a host name',
    (subdomain) => {
      const error = caught(() =>
        interpolateUrl('https://${connectionConfig.subdomain}.zendesk.com', {
          connectionConfig: { subdomain },
        }),
      );
      expect(error).toBeInstanceOf(InvalidTemplateValueError);
      expect((error as Error).message).toMatch(
        /connectionConfig\.subdomain cannot be part of a host/,
      );
    },
  );

  it('takes a whole origin from a value that opens the template', () => {
    const template = '${connectionConfig.instance_url}/services/data';
    expect(
      interpolateUrl(template, {
        connectionConfig: { instance_url: 'https://acme.my.salesforce.com/' },
      }),
    ).toBe('https://acme.my.salesforce.com/services/data');
    for (const instanceUrl of [
      'https://evil.example/x',
      'https://user:pass@acme.my.salesforce.com',
      'javascript:alert(1)',
      'acme.my.salesforce.com',
    ]) {
      expect(() =>
        interpolateUrl(template, { connectionConfig: { instance_url: instanceUrl } }),
      ).toThrow(/must be a bare http\(s\) origin/);
    }
  });

  it('lists missing values of URLs', () => {
    const error = caught(() =>
      interpolateUrl('https://${connectionConfig.dc}.api.mailchimp.com/${connectionConfig.v}', {}),
    );
    expect((error as MissingTemplateValueError).missing).toEqual([
      'connectionConfig.dc',
      'connectionConfig.v',
    ]);
  });

  it('refuses credentials in URLs', () => {
    expect(() => interpolateUrl('https://api.example.com/${apiKey}', { apiKey: 'k' })).toThrow(
      TemplateSyntaxError,
    );
  });
});
