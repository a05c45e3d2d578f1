// @ts-check
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.data/**',
      '.tools/**',
      'coverage/**',
      '*.config.js',
      'eslint.config.mjs',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // NestJS injects by runtime class reference: a decorator-metadata parameter must stay a value import.
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message: 'Workflows run in the Temporal sandbox: no Node built-ins.',
          })),
          patterns: [
            { group: ['@nestjs/*'], message: 'Workflows run in the Temporal sandbox: no NestJS.' },
            {
              group: ['typeorm', 'pg', 'axios', 'undici'],
              message: 'Workflows run in the Temporal sandbox: side effects belong in activities.',
            },
            {
              group: ['../src/*', '../../src/*'],
              message: 'Workflows may import only @temporalio/workflow, types and constants.',
              allowTypeImports: true,
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'process', 'Buffer'],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
