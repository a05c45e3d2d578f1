import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildScript, bundleScript, loadDefinition, ScriptBundleError } from './bundle';

const SDK = JSON.stringify(join(__dirname, '..', 'scripts', 'sdk', 'index'));

describe('bundling and reading script definitions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'junction-bundle-'));
  const write = (name: string, source: string): string => {
    const path = join(dir, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, source);
    return path;
  };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('bundles a sync with its imports and describes its models as JSON Schema', async () => {
    write('lib/ids.ts', `export const prefix = (id: number): string => 'issue-' + id;`);
    const file = write(
      'issues.ts',
      `import { createSync, z } from ${SDK};
       import { prefix } from './lib/ids';
       export default createSync({
         name: 'issues', integration: 'github', frequency: 'every 30 minutes', type: 'full',
         trackDeletes: true, autoStart: false, timeout: '2h', description: 'Open issues',
         models: { GithubIssue: z.object({ id: z.string().describe('Issue id'), title: z.string() }) },
         async exec(ctx) { await ctx.batchSave([{ id: prefix(1), title: 'x' }], 'GithubIssue'); },
       });`,
    );
    const { bundle, definition } = await bundleScript(file);
    expect(definition).toEqual({
      kind: 'sync',
      name: 'issues',
      integration: 'github',
      description: 'Open issues',
      frequency: 'every 30 minutes',
      frequency_ms: 1_800_000,
      auto_start: false,
      type: 'full',
      track_deletes: true,
      timeout_ms: 7_200_000,
      models: {
        GithubIssue: expect.objectContaining({
          type: 'object',
          properties: {
            id: { type: 'string', description: 'Issue id' },
            title: { type: 'string' },
          },
          required: ['id', 'title'],
        }) as unknown,
      },
    });

    // The stored bundle is self-contained: it runs with nothing but Node built-ins.
    const loaded = loadDefinition(bundle) as {
      exec(context: { batchSave(records: unknown[], model: string): Promise<void> }): Promise<void>;
    };
    const saved: unknown[] = [];
    await loaded.exec({ batchSave: (records) => Promise.resolve(void saved.push(...records)) });
    expect(saved).toEqual([{ id: 'issue-1', title: 'x' }]);
  });

  it('reads an action imported as junction/scripts, with input and output schemas', async () => {
    const file = write(
      'create-issue.ts',
      `import { createAction, z } from 'junction/scripts';
       import { createHash } from 'node:crypto';
       export default createAction({
         name: 'create-issue', integration: 'github', retries: 2,
         input: z.object({ title: z.string(), labels: z.array(z.string()).default([]) }),
         output: z.object({ id: z.string() }),
         async exec(_ctx, input) { return { id: createHash('sha1').update(input.title).digest('hex') }; },
       });`,
    );
    const built = await buildScript(file);
    expect(built).toMatchObject({
      status: 'ok',
      definition: {
        kind: 'action',
        name: 'create-issue',
        retries: 2,
        // Callers send input: a field with a default is optional there.
        input_schema: { type: 'object', required: ['title'] },
        output_schema: { type: 'object', required: ['id'] },
      },
    });
  });

  it('skips modules without a definition', async () => {
    const file = write(
      'helpers.ts',
      `export const pageSize = 100; export default { pageSize: 100 };`,
    );
    expect(await buildScript(file)).toEqual({
      status: 'skipped',
      reason: 'no default export made by createSync or createAction',
    });
    await expect(bundleScript(file)).rejects.toBeInstanceOf(ScriptBundleError);
  });

  it('lists every problem of a definition by its authoring name', async () => {
    const sync = write(
      'bad-sync.ts',
      `import { createSync, z } from ${SDK};
       export default createSync({
         name: 'bad name', integration: 'github', frequency: 'often', type: 'incremental',
         trackDeletes: true, timeout: 'forever',
         models: { NoId: z.object({ title: z.string() }), NotZod: { id: 'x' } as never },
         async exec() {},
       });`,
    );
    const built = await buildScript(sync);
    expect(built.status).toBe('invalid');
    const problems = built.status === 'invalid' ? built.problems : [];
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^timeout: must be a positive number/),
        expect.stringMatching(/^models\.NotZod: must be a zod object schema/),
        expect.stringMatching(/^name: must be 1-100 letters/),
        expect.stringMatching(/^frequency: must be a positive number/),
        'models.NoId: must have a required "id" property',
        'trackDeletes: applies to full syncs only (type "full")',
      ]),
    );
    expect(problems).toHaveLength(6);

    const action = write(
      'bad-action.ts',
      `import { createAction } from ${SDK};
       export default createAction({ name: 'act', integration: 'github', retries: -1 } as never);`,
    );
    expect(await buildScript(action)).toEqual({
      status: 'invalid',
      problems: [
        'exec: must be a function',
        'input: an action needs an input schema, e.g. z.object({ ... })',
        expect.stringMatching(/^retries: /) as unknown,
      ],
    });
  });

  it('reports syntax errors with their location, and a throwing top level', async () => {
    const broken = write('broken.ts', `export default {\n  kind: 'sync',,\n};`);
    const built = await buildScript(broken);
    expect(built.status).toBe('invalid');
    expect(built.status === 'invalid' && built.problems[0]).toMatch(/broken\.ts:2:\d+: /);

    const throwing = write('throwing.ts', `throw new Error('no config');\nexport default 1;`);
    expect(await buildScript(throwing)).toEqual({
      status: 'invalid',
      problems: ['loading the script failed: no config'],
    });
  });
});
