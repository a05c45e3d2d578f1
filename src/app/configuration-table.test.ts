import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configurationTable } from './configuration-table';

describe('README configuration table', () => {
  it('matches the schema (regenerate with `node dist/src/main.js config-table`)', () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    expect(readme).toContain(configurationTable());
  });
});
