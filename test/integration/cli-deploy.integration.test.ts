import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../harness/test-app';

const CLI = join(__dirname, '..', '..', 'dist', 'src', 'cli', 'index.js');
const SDK = JSON.stringify(join(__dirname, '..', '..', 'src', 'scripts', 'sdk', 'index'));

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The built CLI as an operator runs it; asynchronous, since the service runs in this process. */
function junction(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<Run> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('close', (status) => resolve({ status, stdout, stderr })),
  );
}

const syncSource = (name: string, frequency = '1h') => `
import { createSync, z } from ${SDK};
import { issueTitle } from '../lib/helper';

export default createSync({
  name: '${name}',
  integration: 'github',
  frequency: '${frequency}',
  type: 'incremental',
  models: { GithubIssue: z.object({ id: z.string(), title: z.string() }) },
  async exec(ctx) {
    await ctx.batchSave([{ id: '1', title: issueTitle(1) }], 'GithubIssue');
  },
});
`;

const actionSource = `
import { createAction, z } from 'junction/scripts';

export default createAction({
  name: 'create-issue',
  integration: 'github',
  input: z.object({ title: z.string() }),
  async exec(ctx, input) {
    return (await ctx.post<{ id: string }>({ endpoint: '/issues', data: input })).data;
  },
});
`;

describe('junction deploy (built CLI) against a running service', () => {
  let app: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'junction-cli-'));
  const write = (name: string, source: string): void => {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), source);
  };
  const deploy = (...flags: string[]) =>
    junction(['deploy', '--dir', dir, '--url', app.url, ...flags], {
      JUNCTION_SECRET_KEY: app.devKey,
    });
  const listed = async (): Promise<Array<{ name: string; version: number }>> => {
    const response = await fetch(`${app.url}/scripts`, {
      headers: { authorization: `Bearer ${app.devKey}` },
    });
    return ((await response.json()) as { scripts: Array<{ name: string; version: number }> })
      .scripts;
  };

  beforeAll(async () => {
    app = await startTestApp();
    await app.client().createIntegration({ provider: 'github', provider_config_key: 'github' });
    write('lib/helper.ts', `export const issueTitle = (n: number): string => 'Issue ' + n;\n`);
    write('github/issues.ts', syncSource('issues'));
    write('github/create-issue.ts', actionSource);
    write('github/issues.test.ts', 'this is not even TypeScript');
    write('types.d.ts', 'declare const nothing: never;');
    write('node_modules/dep/index.ts', 'syntax error here (');
  });
  afterAll(async () => {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('bundles, uploads and reports versions; a second deploy changes nothing', async () => {
    const first = await deploy();
    expect(first.stderr).toContain('Bundling 1/3 github/create-issue.ts');
    expect(first.stderr).toContain('Bundling 3/3 lib/helper.ts');
    expect(first.stderr).toContain(
      'Skipped lib/helper.ts: no default export made by createSync or createAction',
    );
    expect(first.stderr).toMatch(/created +sync +github\/issues v1/);
    expect(first.stderr).toMatch(/created +action github\/create-issue v1/);
    expect(first.stderr).toContain('Deployed: 2 created, 0 updated, 0 unchanged, 0 removed');
    expect(first.status).toBe(0);
    expect(await listed()).toEqual([
      expect.objectContaining({ name: 'create-issue', version: 1 }),
      expect.objectContaining({ name: 'issues', version: 1 }),
    ]);

    const again = await deploy();
    expect(again.status).toBe(0);
    expect(again.stderr).toContain('Deployed: 0 created, 0 updated, 2 unchanged, 0 removed');

    write('github/issues.ts', syncSource('issues', '15 minutes'));
    const changed = await deploy();
    expect(changed.stderr).toMatch(/updated +sync +github\/issues v2/);
    expect(changed.status).toBe(0);
  });

  it('lists the problems of every broken file and uploads nothing', async () => {
    write('github/broken-frequency.ts', syncSource('weekly', 'now and then'));
    write('github/broken-syntax.ts', 'export default createSync({ name: ');
    write('github/duplicate.ts', syncSource('issues'));
    const run = await deploy();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Invalid scripts; nothing was uploaded:');
    expect(run.stderr).toMatch(
      /github\/broken-frequency\.ts: frequency: must be a positive number/,
    );
    expect(run.stderr).toMatch(/github\/broken-syntax\.ts: .*broken-syntax\.ts:1:\d+: /);
    expect(run.stderr).toContain(
      'github/issues.ts: sync "issues" of "github" is already defined in github/duplicate.ts',
    );
    expect(run.stderr).not.toContain('Uploading');
    expect(await listed()).toEqual([
      expect.objectContaining({ name: 'create-issue', version: 1 }),
      expect.objectContaining({ name: 'issues', version: 2 }),
    ]);
    for (const name of ['broken-frequency', 'broken-syntax', 'duplicate']) {
      rmSync(join(dir, 'github', `${name}.ts`));
    }
  });

  it('asks for --yes before removing scripts when not on a terminal', async () => {
    rmSync(join(dir, 'github', 'create-issue.ts'));
    const refused = await deploy();
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      'This deploy removes scripts that are no longer in the folder:',
    );
    expect(refused.stderr).toMatch(/action github\/create-issue v1/);
    expect(refused.stderr).toContain('Re-run with --yes to confirm the removal');
    expect((await listed()).map((script) => script.name)).toEqual(['create-issue', 'issues']);

    const confirmed = await deploy('--yes');
    expect(confirmed.stderr).toMatch(/removed +action github\/create-issue v1/);
    expect(confirmed.stderr).toContain('Deployed: 0 created, 0 updated, 1 unchanged, 1 removed');
    expect(confirmed.status).toBe(0);
    expect((await listed()).map((script) => script.name)).toEqual(['issues']);
  });

  it('says what the service refused, and exits 2 on usage errors', async () => {
    write('jira/tickets.ts', syncSource('tickets').replace("'github'", "'jira'"));
    const unknown = await deploy();
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(
      /Deploy failed: Unknown integration\(s\) "jira".*unknown_integration, HTTP 422/,
    );
    rmSync(join(dir, 'jira'), { recursive: true });

    const wrongKey = await junction(['deploy', '--dir', dir, '--url', app.url, '--key', 'nope']);
    expect(wrongKey.status).toBe(1);
    expect(wrongKey.stderr).toMatch(/Deploy failed: .*HTTP 401/);

    const noKey = await junction(['deploy', '--dir', dir, '--url', app.url]);
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toContain('A secret key is needed');

    const badFlag = await junction(['deploy', '--force'], { JUNCTION_SECRET_KEY: 'k' });
    expect(badFlag.status).toBe(2);
    expect(badFlag.stderr).toContain("Unknown option '--force'");

    const noFolder = await junction(['deploy', '--dir', join(dir, 'missing')], {
      JUNCTION_SECRET_KEY: 'k',
    });
    expect(noFolder.status).toBe(1);
    expect(noFolder.stderr).toContain('No folder');
  });

  it('hands service commands to the service entry and prints help', async () => {
    const table = await junction(['config-table']);
    expect(table.status).toBe(0);
    expect(table.stdout).toContain('| Variable | Default | Meaning | Secret |');

    const keys = await junction(['keys', 'rotate', 'staging']);
    expect(keys.status).toBe(2);

    const help = await junction(['help']);
    expect(help.status).toBe(0);
    expect(help.stderr).toContain('deploy [--dir <folder>]');
    expect(help.stderr).toContain('config-table');
  });
});
