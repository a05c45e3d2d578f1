import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Junction } from '../../src/client';
import { FakeGitHub } from '../fixtures/fake-github';
import { FakeSlack } from '../fixtures/fake-slack';
import {
  type ApiCaller,
  apiCaller,
  deployScripts,
  EXAMPLES,
  runSync,
  SDK_PATH,
  waitForRun,
  fakeOAuth2Integration,
} from '../harness/sync-helpers';
import { queryDatabase } from '../harness/databases';
import { runCli } from '../harness/cli-process';
import { startTestApp, type TestApp } from '../harness/test-app';

const GITHUB = join(EXAMPLES, 'github', 'issues.ts');
const SLACK = join(EXAMPLES, 'slack', 'users.ts');

interface Issue {
  id: string;
  number: number;
  repository: string;
  title: string;
  state: string;
  labels: string[];
  _service_metadata: { last_action: string; deleted_at: string | null };
}

async function allRecords<T extends object>(
  client: Junction,
  providerConfigKey: string,
  model: string,
  extra: { filter?: string; modifiedAfter?: string } = {},
): Promise<T[]> {
  const records: T[] = [];
  let cursor: string | null = null;
  do {
    const page: { records: T[]; next_cursor: string | null } = await client.listRecords<T>({
      providerConfigKey,
      connectionId: 'acme',
      model,
      limit: 100,
      cursor,
      ...extra,
    });
    records.push(...page.records);
    cursor = page.next_cursor;
  } while (cursor);
  return records;
}

describe('syncs: deployed scripts run on a worker and fill the records store', () => {
  let app: TestApp;
  let client: Junction;
  let api: ApiCaller;
  let github: FakeGitHub;
  let slack: FakeSlack;
  let scratch: string;
  const deployed = [GITHUB, SLACK];

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'junction-syncs-'));
    app = await startTestApp({
      mode: 'local',
      env: { DATA_DIR: scratch, SCRIPT_MEMORY_LIMIT_MB: '64' },
    });
    client = app.client();
    api = apiCaller(app.url, app.devKey);
    github = await new FakeGitHub('gh-token').start();
    slack = await new FakeSlack('xoxb-token').start();
    await fakeOAuth2Integration(client, 'fake-github', github.url, 'github');
    await fakeOAuth2Integration(client, 'fake-slack', slack.url, 'slack');
    await client.importConnection({
      provider_config_key: 'github',
      connection_id: 'acme',
      access_token: 'gh-token',
      metadata: { repositories: ['acme/widgets', 'acme/gears'] },
    });
    await client.importConnection({
      provider_config_key: 'slack',
      connection_id: 'acme',
      access_token: 'xoxb-token',
    });
    // Data exists before the deploy: deploying creates the connections' schedules, and the
    // auto-start syncs run at once, so their first runs read all of it.
    github.addIssues('acme/widgets', 250, 10);
    github.addIssues('acme/gears', 30, 10);
    slack.add(450);
    await deployScripts(api, deployed);
  });

  afterAll(async () => {
    await app?.stop();
    await github?.stop();
    await slack?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('syncs GitHub issues incrementally, following Link headers, and counts what changed', async () => {
    const first = await waitForRun(api, 'github', 'acme', 'github-issues');
    expect(first).toMatchObject({
      status: 'SUCCESS',
      type: 'INITIAL',
      results: { GithubIssue: { added: 252, updated: 0, deleted: 0 } },
    });
    expect(github.served.filter((path) => path.includes('page=3'))).toHaveLength(1);
    const issues = await allRecords<Issue>(client, 'github', 'GithubIssue');
    expect(issues).toHaveLength(252);
    expect(new Set(issues.map((issue) => issue.id)).size).toBe(252);
    expect(issues.find((issue) => issue.number === 1)).toMatchObject({
      repository: 'acme/widgets',
      title: expect.stringMatching(/^Issue \d+$/) as unknown,
      state: 'open',
      labels: ['bug'],
      _service_metadata: { last_action: 'ADDED', deleted_at: null },
    });
    expect(issues.some((issue) => issue.number % 10 === 0)).toBe(false);

    github.syncClock();
    github.update('acme/widgets', 3, { state: 'closed', title: 'Closed now' });
    github.addIssues('acme/gears', 5);
    github.served.length = 0;
    const second = await runSync(api, 'github', 'acme', 'github-issues');
    expect(second).toMatchObject({
      status: 'SUCCESS',
      type: 'INCREMENTAL',
      results: { GithubIssue: { added: 5, updated: 1, deleted: 0 } },
    });
    expect(github.served.every((path) => path.includes('since='))).toBe(true);
    const changed = await allRecords<Issue>(client, 'github', 'GithubIssue', {
      modifiedAfter: second.started_at,
    });
    expect(changed).toHaveLength(6);
    expect(changed.find((issue) => issue.number === 3)).toMatchObject({
      state: 'closed',
      title: 'Closed now',
      _service_metadata: { last_action: 'UPDATED' },
    });
  });

  it('tracks deletions in a full sync, and a failed run deletes nothing', async () => {
    const first = await waitForRun(api, 'slack', 'acme', 'slack-users');
    expect(first).toMatchObject({
      status: 'SUCCESS',
      type: 'INITIAL',
      results: { SlackUser: { added: 450, updated: 0, deleted: 0 } },
    });

    slack.remove('U000010');
    slack.remove('U000020');
    const deactivated = slack.members.find((member) => member.id === 'U000030');
    if (deactivated) deactivated.deleted = true;
    const renamed = slack.members.find((member) => member.id === 'U000040');
    if (renamed) renamed.profile.real_name = 'Renamed';
    slack.add(3);
    const second = await runSync(api, 'slack', 'acme', 'slack-users');
    expect(second).toMatchObject({
      status: 'SUCCESS',
      type: 'INCREMENTAL',
      results: { SlackUser: { added: 3, updated: 1, deleted: 3 } },
    });
    const deleted = await allRecords<{ id: string; _service_metadata: { deleted_at: string } }>(
      client,
      'slack',
      'SlackUser',
      { filter: 'deleted' },
    );
    expect(deleted.map((user) => user.id).sort()).toEqual(['U000010', 'U000020', 'U000030']);
    expect(deleted.every((user) => user._service_metadata.deleted_at !== null)).toBe(true);

    // The API fails for good in the middle of the next run: nothing may be marked deleted.
    slack.remove('U000050');
    slack.failNext = 100;
    const failed = await runSync(api, 'slack', 'acme', 'slack-users');
    expect(failed.status).toBe('ERROR');
    expect(failed.error?.message).toMatch(/500/);
    expect(failed.results.SlackUser?.deleted ?? 0).toBe(0);
    const stillDeleted = await allRecords(client, 'slack', 'SlackUser', { filter: 'deleted' });
    expect(stillDeleted).toHaveLength(3);

    // A member who comes back is live again.
    slack.failNext = 0;
    slack.members.push({ ...slack.members[0]!, id: 'U000010', name: 'back' });
    const third = await runSync(api, 'slack', 'acme', 'slack-users');
    expect(third).toMatchObject({
      status: 'SUCCESS',
      results: { SlackUser: { added: 1, deleted: 1 } },
    });
    const back = (
      await allRecords<{
        id: string;
        name: string;
        _service_metadata: { last_action: string; deleted_at: string | null };
      }>(client, 'slack', 'SlackUser')
    ).find((user) => user.id === 'U000010');
    expect(back).toMatchObject({
      name: 'back',
      _service_metadata: { last_action: 'ADDED', deleted_at: null },
    });
  });

  describe('scripts that misbehave fail their run, never the worker', () => {
    const write = (name: string, body: string): string => {
      const file = join(scratch, `${name}.ts`);
      writeFileSync(
        file,
        `import { createSync, z } from ${JSON.stringify(SDK_PATH)};\n` +
          `export default createSync({ name: ${JSON.stringify(name)}, integration: 'github', frequency: '1h', type: 'full', timeout: '3s', autoStart: false,\n` +
          `  models: { Thing: z.object({ id: z.string(), size: z.number() }) },\n` +
          `  async exec(ctx) {\n${body}\n  } });\n`,
      );
      return file;
    };

    beforeAll(async () => {
      deployed.push(
        write('throws', "    throw new Error('the script gave up');"),
        write('hangs', '    await new Promise(() => {});'),
        write('spins', '    for (;;) {}'),
        write(
          'floods',
          '    const hoard: string[] = [];\n    for (;;) hoard.push("x".repeat(1024 * 1024) + hoard.length);',
        ),
        write(
          'no-id',
          "    await ctx.batchSave([{ id: 'a', size: 1 }, { size: 2 } as never], 'Thing');",
        ),
        write(
          'wrong-type',
          "    await ctx.batchSave([{ id: 'a', size: 'big' } as never], 'Thing');",
        ),
        write(
          'escapes',
          "    const fs = require('node:fs');\n    ctx.log(String(fs.readdirSync('/')));",
        ),
      );
      await deployScripts(api, deployed);
    });

    it.each([
      ['throws', /the script gave up/],
      ['hangs', /longer than its limit of 3000 ms/],
      ['spins', /longer than its limit of 3000 ms/],
      ['floods', /memory limit of 64 MB/],
      ['no-id', /batchSave\(Thing\): record 1 has no "id"/],
      ['wrong-type', /batchSave\(Thing\): record 0 \(id "a"\) does not match the model: size:/],
      ['escapes', /cannot import "node:fs"/],
    ])('%s', async (name, message) => {
      const run = await runSync(api, 'github', 'acme', name);
      expect(run.status).toBe('ERROR');
      expect(run.error?.message).toMatch(message);
      expect(run.attempts).toBe(1);
      // The worker is still there and still runs scripts.
      const healthy = await runSync(api, 'github', 'acme', 'github-issues');
      expect(healthy.status).toBe('SUCCESS');
    });
  });

  it('gives scripts their context: connection, metadata, variables, HTTP, writes, checkpoints', async () => {
    await client.setEnvironmentVariables([{ name: 'REGION', value: 'eu-west' }]);
    const file = join(scratch, 'context.ts');
    writeFileSync(
      file,
      `import { createSync, z } from ${JSON.stringify(SDK_PATH)};
export default createSync({ name: 'context', integration: 'github', frequency: '1h', type: 'incremental', autoStart: false,
  models: { Thing: z.object({ id: z.string(), size: z.number(), colour: z.string().optional() }) },
  async exec(ctx) {
    const connection = await ctx.getConnection();
    const metadata = await ctx.getMetadata<{ repositories: string[] }>();
    const variables = await ctx.getEnvironmentVariables();
    const before = await ctx.getCheckpoint<{ runs: number }>();
    const page = await ctx.get<unknown[]>({ endpoint: '/repos/acme/widgets/issues', params: { per_page: 2 } });
    ctx.log('context seen', { issues: page.data.length });
    await ctx.batchSave([{ id: 'a', size: 1 }, { id: 'b', size: 2, colour: 'red' }, { id: 'c', size: 3 }, { id: 'a', size: 10 }], 'Thing');
    await ctx.batchUpdate([{ id: 'b', size: 20 }], 'Thing');
    await ctx.batchDelete([{ id: 'c' }], 'Thing');
    await ctx.saveCheckpoint({
      runs: (before?.runs ?? 0) + 1,
      connection: connection.connection_id,
      token: connection.credentials.access_token === 'gh-token',
      repositories: metadata.repositories,
      region: variables.find((variable) => variable.name === 'REGION')?.value,
      issues: page.data.length,
      status: page.status,
      lastSyncDate: ctx.lastSyncDate === null ? null : 'set',
      environment: ctx.environment,
      dryRun: ctx.dryRun,
    });
  } });
`,
    );
    deployed.push(file);
    await deployScripts(api, deployed);

    const first = await runSync(api, 'github', 'acme', 'context');
    expect(first).toMatchObject({
      status: 'SUCCESS',
      results: { Thing: { added: 2, updated: 0, deleted: 1 } },
    });
    const second = await runSync(api, 'github', 'acme', 'context');
    expect(second.status).toBe('SUCCESS');
    const [state] = await queryDatabase<{ checkpoint: unknown }>(
      app.database.url,
      "SELECT checkpoint FROM sync_states WHERE sync_name = 'context'",
    );
    expect(state?.checkpoint).toEqual({
      runs: 2,
      connection: 'acme',
      token: true,
      repositories: ['acme/widgets', 'acme/gears'],
      region: 'eu-west',
      issues: 2,
      status: 200,
      lastSyncDate: 'set',
      environment: 'dev',
      dryRun: false,
    });
    const things = await allRecords<{ id: string; size: number; colour?: string }>(
      client,
      'github',
      'Thing',
    );
    const byId = Object.fromEntries(things.map((thing) => [thing.id, thing]));
    expect(byId.a).toMatchObject({ size: 10, _service_metadata: { last_action: 'ADDED' } });
    expect(byId.b).toMatchObject({ size: 20, colour: 'red' });
    expect(byId.c).toMatchObject({ _service_metadata: { last_action: 'DELETED' } });
  });

  it('starts every run in a fresh context: module state does not carry from one run to the next', async () => {
    const file = join(scratch, 'module-state.ts');
    writeFileSync(
      file,
      `import { createSync, z } from ${JSON.stringify(SDK_PATH)};
let runsInThisContext = 0;
export default createSync({ name: 'module-state', integration: 'github', frequency: '1h', type: 'incremental', autoStart: false,
  models: { Thing: z.object({ id: z.string() }) },
  async exec(ctx) {
    runsInThisContext += 1;
    const before = await ctx.getCheckpoint<{ seen: number[] }>();
    await ctx.saveCheckpoint({ seen: [...(before?.seen ?? []), runsInThisContext] });
  } });
`,
    );
    deployed.push(file);
    await deployScripts(api, deployed);
    for (let run = 0; run < 3; run += 1) {
      expect((await runSync(api, 'github', 'acme', 'module-state')).status).toBe('SUCCESS');
    }
    const [state] = await queryDatabase<{ checkpoint: unknown }>(
      app.database.url,
      "SELECT checkpoint FROM sync_states WHERE sync_name = 'module-state'",
    );
    expect(state?.checkpoint).toEqual({ seen: [1, 1, 1] });
  });

  it('dry-runs a sync through the CLI: records and counts printed, nothing saved', async () => {
    github.syncClock();
    github.addIssues('acme/gears', 3);
    const before = await queryDatabase<{ count: string }>(
      app.database.url,
      'SELECT count(*) FROM records',
    );
    const result = await runCli(['dryrun', 'github-issues', 'acme', '--dir', EXAMPLES, '--json'], {
      JUNCTION_URL: app.url,
      JUNCTION_SECRET_KEY: app.devKey,
    });
    if (result.code !== 0) throw new Error(`dryrun exited ${result.code}:\n${result.stderr}`);
    const report = JSON.parse(result.stdout) as {
      models: Record<string, { added: number; unchanged: number; records: { id: string }[] }>;
      logs: { message: string }[];
    };
    expect(report.models.GithubIssue?.added).toBe(3);
    expect(report.models.GithubIssue?.unchanged).toBeGreaterThan(250);
    expect(report.logs.some((entry) => entry.message.includes('issues of acme/gears'))).toBe(true);
    const after = await queryDatabase<{ count: string }>(
      app.database.url,
      'SELECT count(*) FROM records',
    );
    expect(after).toEqual(before);

    const readable = await runCli(['dryrun', 'github-issues', 'acme', '--dir', EXAMPLES], {
      JUNCTION_URL: app.url,
      JUNCTION_SECRET_KEY: app.devKey,
    });
    if (readable.code !== 0) throw new Error(`dryrun exited ${readable.code}:\n${readable.stderr}`);
    expect(readable.stdout).toMatch(/GithubIssue/);
    expect(readable.stdout).toMatch(/3 added/);

    const failing = await runCli(['dryrun', 'throws', 'acme', '--dir', scratch], {
      JUNCTION_URL: app.url,
      JUNCTION_SECRET_KEY: app.devKey,
    });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toMatch(/the script gave up/);
  });

  it('answers 404 for unknown syncs and connections', async () => {
    const unknownSync = await api<{ error: { code: string; message: string } }>(
      'POST',
      '/sync/trigger',
      {
        provider_config_key: 'github',
        connection_id: 'acme',
        syncs: ['nope'],
      },
    );
    expect(unknownSync.status).toBe(404);
    expect(unknownSync.body.error).toMatchObject({ code: 'sync_not_found' });
    expect(unknownSync.body.error.message).toContain('"nope"');
    const unknownConnection = await api<{ error: { code: string } }>('POST', '/sync/trigger', {
      provider_config_key: 'github',
      connection_id: 'ghost',
      syncs: [],
    });
    expect(unknownConnection.status).toBe(404);
    expect(unknownConnection.body.error.code).toBe('connection_not_found');
  });
});
