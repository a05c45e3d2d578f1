import builtInCatalog from './catalog/providers.json';
import { parseCatalog } from './provider-schema';
import { AUTH_MODES, type ProviderDefinition } from './provider.types';

const REQUIRED_NAMES = [
  'github',
  'google',
  'google-calendar',
  'google-drive',
  'gmail',
  'slack',
  'salesforce',
  'hubspot',
  'notion',
  'linear',
  'jira',
  'confluence',
  'zendesk',
  'intercom',
  'shopify',
  'stripe',
  'asana',
  'airtable',
  'dropbox',
  'box',
  'microsoft',
  'outlook',
  'zoom',
  'twilio',
  'sendgrid',
  'mailchimp',
  'quickbooks',
  'xero',
  'trello',
  'twitter',
  'pipedrive',
  'calendly',
  'gitlab',
  'bitbucket',
  'discord',
  'figma',
  'monday',
  'clickup',
  'freshdesk',
  'pagerduty',
  'datadog',
  'openai',
  'anthropic',
  'mailgun',
  'typeform',
  'docusign',
  'spotify',
  'okta',
  'gong',
  'greenhouse',
  'attio',
];

describe('built-in provider catalog', () => {
  const providers = parseCatalog(builtInCatalog, 'providers.json');
  const byName = new Map(providers.map((provider) => [provider.name, provider]));
  const provider = (name: string): ProviderDefinition => {
    const found = byName.get(name);
    if (!found) throw new Error(`${name} is not in the catalog`);
    return found;
  };

  it('passes the schema and has at least 45 providers', () => {
    expect(providers.length).toBeGreaterThanOrEqual(45);
  });

  it('includes every provider the product promises', () => {
    const absent = REQUIRED_NAMES.filter((name) => !byName.has(name));
    expect(absent).toEqual([]);
  });

  it('has providers of every auth mode', () => {
    for (const mode of AUTH_MODES) {
      expect(providers.some((entry) => entry.auth_mode === mode)).toBe(true);
    }
  });

  it('keeps the file sorted by name so diffs stay readable', () => {
    const names = providers.map((entry) => entry.name);
    expect(names).toEqual([...names].sort());
  });

  it('gives every provider a base URL', () => {
    expect(providers.filter((entry) => !entry.proxy?.base_url).map((entry) => entry.name)).toEqual(
      [],
    );
  });

  it('describes the providers as their documentation does', () => {
    expect(provider('github').proxy).toMatchObject({
      headers: { Accept: 'application/vnd.github+json' },
      rate_limit_reset_header: 'x-ratelimit-reset',
    });
    expect(provider('google').authorization_params).toEqual({
      access_type: 'offline',
      prompt: 'consent',
    });
    expect(provider('slack').scope_separator).toBe(',');
    expect(provider('notion')).toMatchObject({
      token_request_auth_method: 'basic',
      proxy: { headers: { 'Notion-Version': '2022-06-28' } },
    });
    expect(provider('salesforce').proxy?.base_url).toBe('${connectionConfig.instance_url}');
    expect(provider('jira').proxy?.base_url).toBe(
      'https://api.atlassian.com/ex/jira/${connectionConfig.cloud_id}',
    );
    expect(provider('stripe')).toMatchObject({
      auth_mode: 'API_KEY',
      proxy: { headers: { Authorization: 'Bearer ${apiKey}' } },
    });
    expect(provider('anthropic').proxy?.headers).toEqual({
      'x-api-key': '${apiKey}',
      'anthropic-version': '2023-06-01',
    });
    expect(provider('pagerduty').proxy?.headers?.Authorization).toBe('Token token=${apiKey}');
    expect(provider('datadog').proxy?.headers?.['DD-API-KEY']).toBe('${apiKey}');
    expect(provider('twilio').proxy?.headers?.Authorization).toBe(
      'Basic ${base64(username:password)}',
    );
    expect(provider('trello')).toMatchObject({
      auth_mode: 'OAUTH1',
      proxy: { base_url: 'https://api.trello.com/1' },
    });
    expect(provider('quickbooks').connection_config_keys).toEqual(['realm_id']);
  });

  it('leaves the Authorization header of OAuth providers to the proxy, unless they need another', () => {
    const oauth = providers.filter((entry) => entry.auth_mode.startsWith('OAUTH'));
    const overriding = oauth.filter((entry) =>
      Object.keys(entry.proxy?.headers ?? {}).some(
        (name) => name.toLowerCase() === 'authorization',
      ),
    );
    expect(overriding.map((entry) => entry.name)).toEqual([]);
  });
});
