import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_VARIABLES } from '../config/config.schema';
import { configurationTable } from './configuration-table';

describe('README configuration table', () => {
  it('matches the schema (regenerate with `node dist/src/main.js config-table`)', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    expect(readme).toContain(configurationTable());
  });
});

describe('docker-compose.yml', () => {
  it('sets only variables the configuration schema knows, including every one api mode requires', () => {
    const compose = readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');
    const block =
      /x-junction-environment: &junction-environment\n((?: {2}.+\n)+)/.exec(compose)?.[1] ?? '';
    const names = [...block.matchAll(/^ {2}([A-Z_]+):/gm)].map((match) => match[1]);
    expect(names.length).toBeGreaterThan(5);
    expect(names.filter((name) => name === undefined || !(name in CONFIG_VARIABLES))).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'TEMPORAL_ADDRESS', 'ENCRYPTION_KEYS']),
    );
  });
});
