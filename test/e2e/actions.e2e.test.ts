import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Junction, JunctionError } from '../../src/client';
import { TemporalClientService } from '../../src/temporal/temporal-client.service';
import { FakeGitHub } from '../fixtures/fake-github';
import { json } from '../fixtures/fake-upstream';
import { type LoopbackServer, startLoopbackServer } from '../fixtures/loopback-server';
import { runCli } from '../harness/cli-process';
import {
  apiCaller,
  deployScripts,
  EXAMPLES,
  SDK_PATH,
  fakeOAuth2Integration,
} from '../harness/sync-helpers';
import { startTestApp, type TestApp } from '../harness/test-app';

async function failure(promise: Promise<unknown>): Promise<JunctionError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof JunctionError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('actions: scripts run on a worker and answered synchronously', () => {
  let app: TestApp;
  let client: Junction;
  let github: FakeGitHub;
  let scratch: string;
  let attempts = 0;
  let counter: LoopbackServer;

  const action = (name: string, options: string, body: string): string => {
    const file = join(scratch, `${name}.ts`);
    writeFileSync(
      file,
      `import { ActionError, createAction, z } from ${JSON.stringify(SDK_PATH)};
export default createAction({ name: ${JSON.stringify(name)}, integration: 'github', ${options}
  async exec(ctx, input) {
${body}
  } });
`,
    );
    return file;
  };

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'junction-actions-'));
    counter = await startLoopbackServer((_request, response) => {
      attempts += 1;
      json(response, 200, { calls: attempts });
      return Promise.resolve();
    });
    app = await startTestApp({ mode: 'local', env: { DATA_DIR: scratch } });
    client = app.client();
    github = await new FakeGitHub('gh-token').start();
    github.addIssues('acme/widgets', 1);
    await fakeOAuth2Integration(client, 'fake-github', github.url, 'github');
    await client.importConnection({
      provider_config_key: 'github',
      connection_id: 'acme',
      access_token: 'gh-token',
      metadata: { repositories: ['acme/widgets', 'acme/ghost'] },
    });
    await deployScripts(apiCaller(app.url, app.devKey), [
      join(EXAMPLES, 'github', 'create-issue.ts'),
      action(
        'echo',
        'input: z.object({ text: z.string(), count: z.number().int().min(1) }),',
        '    return { echoed: input.text, count: input.count, connection: ctx.connectionId };',
      ),
      action(
        'refuses',
        'input: z.object({}),',
        "    throw new ActionError({ reason: 'quota', left: 0 }, 409);",
      ),
      action('crashes', 'input: z.object({}),', "    throw new Error('unexpected state');"),
      action(
        'sleeps',
        "input: z.object({}), timeout: '1s',",
        '    await new Promise((resolve) => setTimeout(resolve, 10_000));',
      ),
      action(
        'flaky',
        'input: z.object({ failures: z.number(), counter: z.string() }), retries: 2,',
        "    const { data } = await ctx.get<{ calls: number }>({ endpoint: '/count', baseUrlOverride: input.counter, retries: 0 });\n    if (data.calls <= input.failures) throw new Error('not yet: ' + data.calls);\n    return { calls: data.calls };",
      ),
      action('once', 'input: z.object({}),', "    throw new Error('no retries by default');"),
    ]);
    attempts = 0;
  });

  afterAll(async () => {
    await app?.stop();
    await github?.stop();
    await counter?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('creates a GitHub issue through the example action', async () => {
    const created = await client.triggerAction<
      { repository: string; title: string; labels: string[] },
      { id: number; number: number; url: string }
    >('github', 'acme', 'github-create-issue', {
      repository: 'acme/widgets',
      title: 'Broken build',
      labels: ['ci'],
    });
    expect(created).toMatchObject({ number: 2, url: 'https://github.com/acme/widgets/issues/2' });
    expect(github.created).toEqual([
      { repository: 'acme/widgets', body: { title: 'Broken build', labels: ['ci'] } },
    ]);

    const outside = await failure(
      client.triggerAction('github', 'acme', 'github-create-issue', {
        repository: 'other/repo',
        title: 'x',
      }),
    );
    expect(outside.status).toBe(403);
    expect(outside.code).toBe('action_failure');
    expect(outside.payload).toMatchObject({ repositories: ['acme/widgets', 'acme/ghost'] });
    const unknown = await failure(
      client.triggerAction('github', 'acme', 'github-create-issue', {
        repository: 'acme/ghost',
        title: 'x',
      }),
    );
    expect(unknown.status).toBe(404);
    expect(unknown.payload).toEqual({ message: 'GitHub refused the issue (404)' });
  });

  it('answers with the output, and 400 naming the fields of an invalid input', async () => {
    await expect(
      client.triggerAction('github', 'acme', 'echo', { text: 'hi', count: 2 }),
    ).resolves.toEqual({ echoed: 'hi', count: 2, connection: 'acme' });
    const invalid = await failure(
      client.triggerAction('github', 'acme', 'echo', { text: 5, count: 0 }),
    );
    expect(invalid.status).toBe(400);
    expect(invalid.code).toBe('invalid_request');
    expect(invalid.errors.map((error) => error.path).sort()).toEqual(['input.count', 'input.text']);
  });

  it('maps failures: ActionError with its status and payload, 500 with an error id, 504 on timeout', async () => {
    const refused = await failure(client.triggerAction('github', 'acme', 'refuses', {}));
    expect(refused.status).toBe(409);
    expect(refused.code).toBe('action_failure');
    expect(refused.payload).toEqual({ reason: 'quota', left: 0 });

    const crashed = await failure(client.triggerAction('github', 'acme', 'crashes', {}));
    expect(crashed.status).toBe(500);
    expect(crashed.code).toBe('internal_error');
    expect(crashed.message).toMatch(/error id [0-9a-f-]{36}/);

    const started = Date.now();
    const slow = await failure(client.triggerAction('github', 'acme', 'sleeps', {}));
    expect(slow.status).toBe(504);
    expect(slow.code).toBe('action_timeout');
    expect(Date.now() - started).toBeLessThan(8_000);
    // The worker's pool replaced the stopped thread: actions still run.
    await expect(
      client.triggerAction('github', 'acme', 'echo', { text: 'again', count: 1 }),
    ).resolves.toMatchObject({ echoed: 'again' });
  });

  it('retries only when the definition says so', async () => {
    await expect(
      client.triggerAction('github', 'acme', 'flaky', { failures: 2, counter: counter.url }),
    ).resolves.toEqual({ calls: 3 });
    const once = await failure(client.triggerAction('github', 'acme', 'once', {}));
    expect(once.status).toBe(500);
    const temporal = app.service.context.get(TemporalClientService);
    const runs = [];
    for await (const workflow of temporal.client.workflow.list({
      query: `JunctionAction = "once" AND JunctionConnection = "acme" AND TaskQueue = "${app.taskQueue}"`,
    })) {
      runs.push(workflow.workflowId);
    }
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(new RegExp(`^action:${app.taskQueue}:dev:github:acme:once:`));
    expect(attempts).toBe(3);
  });

  it('answers 404 for unknown actions and connections, 400 for missing headers', async () => {
    const action = await failure(client.triggerAction('github', 'acme', 'nope', {}));
    expect(action.status).toBe(404);
    expect(action.code).toBe('action_not_found');
    const connection = await failure(client.triggerAction('github', 'nobody', 'echo', {}));
    expect(connection.status).toBe(404);
    expect(connection.code).toBe('connection_not_found');
    const response = await fetch(`${app.url}/action/trigger`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.devKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action_name: 'echo', input: {} }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { errors: { path: string }[] } };
    expect(body.error.errors.map((error) => error.path)).toEqual([
      'Connection-Id',
      'Provider-Config-Key',
    ]);
  });

  it('dry-runs an action through the CLI', async () => {
    const result = await runCli(
      ['dryrun', 'echo', 'acme', '--dir', scratch, '--input', '{"text":"dry","count":3}', '--json'],
      { JUNCTION_URL: app.url, JUNCTION_SECRET_KEY: app.devKey },
    );
    if (result.code !== 0) throw new Error(`dryrun exited ${result.code}:\n${result.stderr}`);
    expect(JSON.parse(result.stdout)).toMatchObject({
      output: { echoed: 'dry', count: 3, connection: 'acme' },
    });
  });
});
