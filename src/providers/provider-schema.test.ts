import { parseCatalog, parseProviderDefinition, ProviderDefinitionError } from './provider-schema';

const oauth2 = {
  name: 'acme',
  display_name: 'Acme',
  auth_mode: 'OAUTH2',
  authorization_url: 'https://acme.example/oauth/authorize',
  token_url: 'https://acme.example/oauth/token',
  proxy: { base_url: 'https://api.acme.example' },
  docs: 'https://acme.example/docs',
};

const apiKey = {
  name: 'acme-key',
  display_name: 'Acme (API key)',
  auth_mode: 'API_KEY',
  proxy: { base_url: 'https://api.acme.example', headers: { Authorization: 'Bearer ${apiKey}' } },
  docs: 'https://acme.example/docs',
};

/** The problems a definition is refused for, or a failure if it is accepted. */
function problemsOf(input: unknown): string[] {
  try {
    parseProviderDefinition(input, 'test.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderDefinitionError);
    return [...(error as ProviderDefinitionError).problems];
  }
  throw new Error('the definition was accepted');
}

describe('parseProviderDefinition', () => {
  it('accepts valid definitions and returns them typed', () => {
    expect(parseProviderDefinition(oauth2, 'test.json').name).toBe('acme');
    expect(parseProviderDefinition(apiKey, 'test.json').auth_mode).toBe('API_KEY');
  });

  it('refuses unknown keys, naming them', () => {
    const problems = problemsOf({ ...oauth2, tokenUrl: 'https://acme.example/token' });
    expect(problems).toEqual([expect.stringMatching(/provider "acme".*"tokenUrl"/)]);
  });

  it('refuses unknown keys inside proxy', () => {
    const problems = problemsOf({ ...oauth2, proxy: { base_url: 'https://a.example', retry: 1 } });
    expect(problems.join('\n')).toMatch(/at proxy: .*"retry"/);
  });

  it('requires token_url and authorization_url for OAUTH2', () => {
    const { token_url: _token, authorization_url: _authorize, ...rest } = oauth2;
    const problems = problemsOf(rest);
    expect(problems).toContainEqual(expect.stringMatching(/at token_url: token_url is required/));
    expect(problems).toContainEqual(
      expect.stringMatching(/at authorization_url: authorization_url is required/),
    );
  });

  it('requires the three OAuth 1 endpoints', () => {
    const problems = problemsOf({ ...oauth2, auth_mode: 'OAUTH1' });
    expect(problems).toEqual([expect.stringMatching(/at request_url: request_url is required/)]);
  });

  it('refuses a connectionConfig placeholder missing from connection_config_keys', () => {
    const problems = problemsOf({
      ...oauth2,
      proxy: { base_url: 'https://${connectionConfig.subdomain}.acme.example' },
    });
    expect(problems).toEqual([
      expect.stringMatching(
        /at proxy\.base_url: uses \$\{connectionConfig\.subdomain\} but "subdomain" is not in connection_config_keys/,
      ),
    ]);
  });

  it('accepts declared connectionConfig placeholders, anywhere in the definition', () => {
    const definition = parseProviderDefinition(
      {
        ...oauth2,
        connection_config_keys: ['subdomain', 'instance_url'],
        token_url: 'https://${connectionConfig.subdomain}.acme.example/token',
        authorization_params: { tenant: '${connectionConfig.subdomain}' },
        proxy: { base_url: '${connectionConfig.instance_url}/api' },
      },
      'test.json',
    );
    expect(definition.connection_config_keys).toEqual(['subdomain', 'instance_url']);
  });

  it('refuses ${apiKey} on an OAUTH2 provider', () => {
    const problems = problemsOf({
      ...oauth2,
      proxy: { base_url: 'https://api.acme.example', headers: { 'X-Key': '${apiKey}' } },
    });
    expect(problems).toEqual([
      expect.stringMatching(
        /at proxy\.headers\.X-Key: \$\{apiKey\} is only allowed for API_KEY providers, not OAUTH2/,
      ),
    ]);
  });

  it('refuses user name and password outside BASIC providers', () => {
    const problems = problemsOf({
      ...apiKey,
      proxy: {
        base_url: 'https://api.acme.example',
        headers: { Authorization: 'Basic ${base64(username:password)}', 'X-Key': '${apiKey}' },
      },
    });
    expect(problems).toEqual([
      expect.stringMatching(
        /\$\{base64\(username:password\)\} is only allowed for BASIC providers/,
      ),
    ]);
  });

  it('refuses unknown placeholders and credentials in URLs', () => {
    const problems = problemsOf({
      ...apiKey,
      proxy: {
        base_url: 'https://api.acme.example/${apiKey}',
        headers: { Authorization: 'Bearer ${secret}', 'X-Key': '${apiKey}' },
      },
    });
    expect(problems).toContainEqual(
      expect.stringMatching(/at proxy\.base_url: \$\{apiKey\} cannot be used in a URL/),
    );
    expect(problems).toContainEqual(
      expect.stringMatching(/at proxy\.headers\.Authorization: unknown placeholder "\$\{secret\}"/),
    );
  });

  it('requires API_KEY and BASIC providers to send their credentials', () => {
    expect(problemsOf({ ...apiKey, proxy: { base_url: 'https://a.example' } })).toEqual([
      expect.stringMatching(/API_KEY providers must send \$\{apiKey\}/),
    ]);
    expect(
      problemsOf({ ...apiKey, auth_mode: 'BASIC', proxy: { base_url: 'https://a.example' } }),
    ).toEqual([expect.stringMatching(/BASIC providers must send their credentials/)]);
  });

  it('refuses URLs that are not http(s) once placeholders are filled', () => {
    const problems = problemsOf({
      ...oauth2,
      token_url: 'ftp://acme.example/token',
      docs: 'acme docs',
      proxy: { base_url: 'api.acme.example' },
    });
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toMatch(/token_url: must be an http\(s\) URL/);
    expect(problems.join('\n')).toMatch(/docs: must be an http\(s\) URL/);
    expect(problems.join('\n')).toMatch(/proxy\.base_url: must be an http\(s\) URL/);
  });

  it('refuses an origin placeholder glued to more host text', () => {
    const problems = problemsOf({
      ...oauth2,
      connection_config_keys: ['instance'],
      proxy: { base_url: '${connectionConfig.instance}.acme.example' },
    });
    expect(problems).toEqual([expect.stringMatching(/must be the whole origin/)]);
  });

  it('refuses fields that the auth mode does not use', () => {
    const problems = problemsOf({ ...apiKey, token_url: 'https://acme.example/token' });
    expect(problems).toEqual([
      expect.stringMatching(/at token_url: only OAUTH2 and OAUTH1 providers use token_url/),
    ]);
  });

  it('checks names, header names and types, listing every problem at once', () => {
    const problems = problemsOf({
      ...oauth2,
      name: 'Acme Corp',
      token_expiry_buffer_seconds: -5,
      proxy: { base_url: 'https://a.example', headers: { Host: 'evil.example', 'X-N': 5 } },
    });
    const text = problems.join('\n');
    expect(text).toMatch(/at name: must be lower-case letters/);
    expect(text).toMatch(/at token_expiry_buffer_seconds: /);
    expect(text).toMatch(/at proxy\.headers\.Host: is set by the proxy itself/);
    expect(text).toMatch(/at proxy\.headers\.X-N: .*expected string/);
  });

  it('puts the source and the provider in the error message', () => {
    expect(() => parseProviderDefinition({ ...oauth2, extra: true }, 'custom.json')).toThrow(
      /Invalid provider definitions in custom\.json:\n {2}- provider "acme" at \(definition\): .*"extra"/,
    );
  });
});

describe('parseCatalog', () => {
  it('refuses duplicate names', () => {
    expect(() => parseCatalog([oauth2, apiKey, oauth2], 'catalog.json')).toThrow(
      /provider "acme" \(entry 2\) at name: duplicate name, already used by entry 0/,
    );
  });

  it('refuses duplicate names even when an entry has other problems', () => {
    expect(() => parseCatalog([{ ...oauth2, docs: 'x' }, oauth2], 'catalog.json')).toThrow(
      /provider "acme" \(entry 1\) at name: duplicate name, already used by entry 0/,
    );
  });

  it('reports the problems of every entry', () => {
    let caught: unknown;
    try {
      parseCatalog(
        [
          { ...oauth2, name: 'a', docs: 'x' },
          { ...apiKey, auth_mode: 'NONE' },
        ],
        'c',
      );
    } catch (error) {
      caught = error;
    }
    const problems = (caught as ProviderDefinitionError).problems.join('\n');
    expect(problems).toMatch(/provider "a" \(entry 0\) at docs/);
    expect(problems).toMatch(/provider "acme-key" \(entry 1\) at auth_mode/);
  });

  it('refuses something that is not a list', () => {
    expect(() => parseCatalog({ github: oauth2 }, 'c.json')).toThrow(/must be a JSON array/);
  });
});
