/** @type {import('jest').Config} */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

/**
 * NestJS 12 and several of its dependencies ship ESM only, which Jest on Node 20 cannot require.
 * Every package that declares `"type": "module"` is let through the transform into CommonJS.
 */
function esmPackages(root = join(__dirname, 'node_modules')) {
  const names = [];
  for (const entry of readdirSync(root)) {
    const scoped = entry.startsWith('@');
    const candidates = scoped
      ? readdirSync(join(root, entry)).map((name) => `${entry}/${name}`)
      : [entry];
    for (const name of candidates) {
      const manifest = join(root, name, 'package.json');
      if (!existsSync(manifest)) continue;
      try {
        if (JSON.parse(readFileSync(manifest, 'utf8')).type === 'module') names.push(name);
      } catch {
        // Not a package.
      }
    }
  }
  return names.map((name) => name.replace(/[.+]/g, '\\$&'));
}

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test', '<rootDir>/activities', '<rootDir>/workflows'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages().join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  globalSetup: '<rootDir>/test/harness/global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
  testTimeout: 60_000,
};
