import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProviderCatalog } from './providers.catalog';

describe('ProviderCatalog', () => {
  let directory: string;

  beforeAll(() => {
    directory = mkdtempSync(join(tmpdir(), 'junction-providers-'));
  });

  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  function customFile(name: string, content: unknown): string {
    const path = join(directory, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  }

  it('serves the built-in providers', () => {
    const catalog = new ProviderCatalog();
    expect(catalog.has('github')).toBe(true);
    expect(catalog.get('github')?.display_name).toBe('GitHub');
    expect(catalog.get('nope')).toBeUndefined();
    const names = catalog.list().map((provider) => provider.name);
    expect(names.length).toBeGreaterThanOrEqual(45);
    expect(names).toEqual([...names].sort());
  });

  it('lets a custom providers file add providers and override built-in ones', () => {
    const path = customFile('custom.json', [
      {
        name: 'github',
        display_name: 'GitHub Enterprise',
        auth_mode: 'OAUTH2',
        authorization_url: 'https://github.acme.example/login/oauth/authorize',
        token_url: 'https://github.acme.example/login/oauth/access_token',
        proxy: { base_url: 'https://github.acme.example/api/v3' },
        docs: 'https://docs.github.com/en/enterprise-server/rest',
      },
      {
        name: 'acme',
        display_name: 'Acme',
        auth_mode: 'API_KEY',
        proxy: { base_url: 'http://localhost:4010', headers: { 'X-Acme-Key': '${apiKey}' } },
        docs: 'https://acme.example/docs',
      },
    ]);
    const catalog = new ProviderCatalog(path);
    expect(catalog.get('github')?.proxy?.base_url).toBe('https://github.acme.example/api/v3');
    expect(catalog.get('acme')?.auth_mode).toBe('API_KEY');
    expect(catalog.list().filter((provider) => provider.name === 'github')).toHaveLength(1);
    expect(new ProviderCatalog().get('github')?.proxy?.base_url).toBe('https://api.github.com');
  });

  it('refuses an invalid custom providers file, naming the file and the problem', () => {
    const path = customFile('bad.json', [{ name: 'acme', auth_mode: 'API_KEY' }]);
    expect(() => new ProviderCatalog(path)).toThrow(
      new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\\s\\S]*provider "acme"`),
    );
    expect(() => new ProviderCatalog(customFile('broken.json', '[{'))).toThrow(/not valid JSON/);
    expect(() => new ProviderCatalog(join(directory, 'absent.json'))).toThrow(/Cannot read/);
  });

  it('hands out definitions that cannot be changed by accident', () => {
    const github = new ProviderCatalog().get('github');
    expect(Object.isFrozen(github)).toBe(true);
    expect(Object.isFrozen(github?.proxy?.headers)).toBe(true);
  });
});
