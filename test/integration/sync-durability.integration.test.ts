import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FakeGitHub } from '../fixtures/fake-github';
import { queryDatabase } from '../harness/databases';
import { type JunctionProcess, startJunctionProcess } from '../harness/junction-process';
import { harnessValue } from '../harness/state';
import {
  apiCaller,
  deployScripts,
  EXAMPLES,
  type RunView,
  waitForRun,
  fakeOAuth2Integration,
} from '../harness/sync-helpers';
import { startTestApp, TEST_ENCRYPTION_KEYS, type TestApp } from '../harness/test-app';

const ISSUES = 3_000;

describe('a sync run survives the loss of its worker', () => {
  let app: TestApp;
  let github: FakeGitHub;
  const workers: JunctionProcess[] = [];

  const startWorker = async (): Promise<JunctionProcess> => {
    const worker = await startJunctionProcess('worker', {
      DATABASE_URL: app.database.url,
      TEMPORAL_ADDRESS: harnessValue('temporalAddress'),
      TEMPORAL_TASK_QUEUE: app.taskQueue,
      ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
      SYNC_HEARTBEAT_TIMEOUT_MS: '2000',
      LOG_LEVEL: 'warn',
    });
    workers.push(worker);
    return worker;
  };

  beforeAll(async () => {
    app = await startTestApp();
    github = await new FakeGitHub('gh-token').start();
    const client = app.client();
    await fakeOAuth2Integration(client, 'fake-github', github.url, 'github');
    await client.importConnection({
      provider_config_key: 'github',
      connection_id: 'acme',
      access_token: 'gh-token',
      metadata: { repositories: ['acme/widgets'] },
    });
  });

  afterAll(async () => {
    for (const worker of workers) await worker.stop('SIGKILL');
    await app?.stop();
    await github?.stop();
  });

  it('SIGKILL mid-run: another worker resumes from the checkpoint; no record lost or duplicated, counts exact', async () => {
    github.addIssues('acme/widgets', ISSUES);
    github.pageDelayMs = 150;
    const api = apiCaller(app.url, app.devKey);
    // The sync starts by itself: deploying creates the connection's schedule, which runs an
    // auto-start sync at once. No worker runs yet, so the run waits for the first one.
    await deployScripts(api, [join(EXAMPLES, 'github', 'issues.ts')]);
    const first = await startWorker();

    // Wait until a few pages are stored, then kill the worker without warning.
    const stored = async () =>
      Number(
        (
          await queryDatabase<{ count: string }>(
            app.database.url,
            "SELECT count(*) FROM records WHERE model = 'GithubIssue'",
          )
        )[0]?.count ?? 0,
      );
    const deadline = Date.now() + 30_000;
    while ((await stored()) < 500) {
      if (Date.now() > deadline) throw new Error('the run did not start storing records');
      await sleep(50);
    }
    first.child.kill('SIGKILL');
    const atKill = await stored();
    expect(atKill).toBeLessThan(ISSUES);
    const pagesBeforeKill = github.served.length;

    await startWorker();
    const run: RunView = await waitForRun(api, 'github', 'acme', 'github-issues', 0, 90_000);

    expect(run).toMatchObject({
      status: 'SUCCESS',
      type: 'INITIAL',
      results: { GithubIssue: { added: ISSUES, updated: 0, deleted: 0 } },
    });
    expect(run.attempts).toBeGreaterThanOrEqual(2);
    const rows = await queryDatabase<{ count: string; ids: string; added: string }>(
      app.database.url,
      `SELECT count(*) AS count, count(DISTINCT external_id) AS ids,
              count(*) FILTER (WHERE last_action = 'ADDED') AS added
         FROM records WHERE model = 'GithubIssue'`,
    );
    expect(rows[0]).toEqual({ count: String(ISSUES), ids: String(ISSUES), added: String(ISSUES) });
    // Resumed, not restarted: the first page was asked for once, and the pages after the
    // kill (at most one repeated) complete the 30 pages.
    const firstPages = github.served.filter((path) => !/[?&]page=/.test(path));
    expect(firstPages).toHaveLength(1);
    expect(github.served.length).toBeLessThanOrEqual(ISSUES / 100 + 1);
    expect(github.served.length).toBeGreaterThan(pagesBeforeKill);
  }, 150_000);
});
