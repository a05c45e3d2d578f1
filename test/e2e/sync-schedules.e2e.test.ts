import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ScheduleDescription, ScheduleNotFoundError } from '@temporalio/client';
import { type Junction, verifyWebhookSignature } from '../../src/client';
import { TemporalClientService } from '../../src/temporal/temporal-client.service';
import { json } from '../fixtures/fake-upstream';
import { type LoopbackServer, startLoopbackServer } from '../fixtures/loopback-server';
import { queryDatabase } from '../harness/databases';
import {
  type ApiCaller,
  apiCaller,
  deployScripts,
  listRuns,
  runSync,
  SDK_PATH,
  waitForIdle,
  waitForRun,
} from '../harness/sync-helpers';
import { startTestApp, type TestApp } from '../harness/test-app';

interface StatusItem {
  id: string;
  connection_id: string;
  name: string;
  status: string;
  type: string | null;
  latestResult: Record<string, { added: number; updated: number }>;
  finishedAt: string | null;
  nextScheduledSyncAt: string | null;
  frequency: string;
}

/** The schedule's interval(s) in milliseconds. */
function everyOf(description: ScheduleDescription): number[] {
  return (description.spec.intervals ?? []).map((interval) => Number(interval.every));
}

describe('sync schedules on Temporal: life cycle and control', () => {
  let app: TestApp;
  let client: Junction;
  let api: ApiCaller;
  let temporal: TemporalClientService;
  let gate: LoopbackServer;
  let scratch: string;
  let workDelayMs = 0;
  let workCalls = 0;

  const script = (name: string, options: string): string => {
    const file = join(scratch, `${name}.ts`);
    writeFileSync(
      file,
      `import { createSync, z } from ${JSON.stringify(SDK_PATH)};
export default createSync({ name: ${JSON.stringify(name)}, integration: 'lab', type: 'incremental', ${options},
  models: { Tick: z.object({ id: z.string(), n: z.number() }) },
  async exec(ctx) {
    await ctx.get({ endpoint: '/work' });
    await ctx.batchSave([{ id: ctx.connectionId + '-' + Date.now(), n: 1 }], 'Tick');
  } });
`,
    );
    return file;
  };
  const files = (): string[] => [
    script('auto', "frequency: '1h'"),
    script('manual', "frequency: '1h', autoStart: false"),
  ];

  const schedule = (connectionId: string, sync: string) =>
    temporal.client.schedule.getHandle(`${app.taskQueue}:dev:lab:${connectionId}:${sync}`);
  const status = async (connectionId: string, syncs: string[] | '*' = '*'): Promise<StatusItem[]> =>
    (await client.syncStatus('lab', syncs, connectionId)).syncs;
  const importConnection = (connectionId: string) =>
    client.importConnection({
      provider_config_key: 'lab',
      connection_id: connectionId,
      api_key: 'k',
    });

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'junction-schedules-'));
    gate = await startLoopbackServer(async (request, response) => {
      workCalls += 1;
      if (workDelayMs > 0) await sleep(workDelayMs);
      json(response, 200, { ok: true, path: request.url });
    });
    app = await startTestApp({
      mode: 'local',
      env: {
        DATA_DIR: scratch,
        SYNC_MIN_FREQUENCY: '2s',
        SCHEDULE_RECONCILE_INTERVAL_MS: '1000',
        SYNC_HEARTBEAT_TIMEOUT_MS: '3000',
      },
    });
    client = app.client();
    api = apiCaller(app.url, app.devKey);
    temporal = app.service.context.get(TemporalClientService);
    await client.putProvider('lab-api', {
      display_name: 'Lab',
      auth_mode: 'API_KEY',
      proxy: { base_url: gate.url, headers: { 'X-Api-Key': '${apiKey}' } },
      docs: 'https://example.com/docs',
    });
    await client.createIntegration({ provider: 'lab-api', provider_config_key: 'lab' });
    await deployScripts(api, files());
  });

  afterAll(async () => {
    await app?.stop();
    await gate?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('a new connection gets a schedule per sync: auto-start running with a first run, others paused', async () => {
    await importConnection('c1');
    const auto = await schedule('c1', 'auto').describe();
    const manual = await schedule('c1', 'manual').describe();
    expect(auto.state.paused).toBe(false);
    expect(manual.state.paused).toBe(true);
    expect(everyOf(auto)).toEqual([3_600_000]);
    expect(auto.policies.overlap).toBe('BUFFER_ONE');
    const first = await waitForRun(api, 'lab', 'c1', 'auto');
    expect(first).toMatchObject({ status: 'SUCCESS', type: 'INITIAL' });
    expect(await listRuns(api, 'lab', 'c1', 'manual')).toEqual([]);

    const items = await status('c1');
    expect(items.map((item) => [item.name, item.status])).toEqual([
      ['auto', 'SUCCESS'],
      ['manual', 'PAUSED'],
    ]);
    const autoStatus = items[0];
    expect(autoStatus).toMatchObject({
      id: `${app.taskQueue}:dev:lab:c1:auto`,
      connection_id: 'c1',
      type: 'INITIAL',
      latestResult: { Tick: { added: 1, updated: 0 } },
      frequency: '1h',
    });
    expect(Date.parse(autoStatus?.finishedAt ?? '')).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(autoStatus?.nextScheduledSyncAt ?? '')).toBeGreaterThan(Date.now());
    expect(items[1]?.nextScheduledSyncAt).toBeNull();
  });

  it('start unpauses and runs a sync that never ran; pause stops new runs', async () => {
    expect(await client.startSync('lab', ['manual'], 'c1')).toMatchObject({ success: true });
    expect((await schedule('c1', 'manual').describe()).state.paused).toBe(false);
    expect(await waitForRun(api, 'lab', 'c1', 'manual')).toMatchObject({ status: 'SUCCESS' });

    // Every 2 seconds, then paused: nothing new starts while paused.
    expect(await client.updateSyncConnectionFrequency('lab', 'manual', 'c1', '2s')).toEqual({
      frequency: '2s',
    });
    await sleep(4_500);
    expect((await listRuns(api, 'lab', 'c1', 'manual')).length).toBeGreaterThanOrEqual(2);
    expect(await client.pauseSync('lab', ['manual'], 'c1')).toMatchObject({ success: true });
    // A run the schedule had already queued may still start once; after that, nothing.
    await waitForIdle(api, 'lab', 'c1', 'manual');
    await sleep(2_500);
    const last = await waitForIdle(api, 'lab', 'c1', 'manual');
    await sleep(5_000);
    const after = await listRuns(api, 'lab', 'c1', 'manual');
    expect(Number(after[0]?.id)).toBe(last);
    expect((await status('c1', ['manual']))[0]?.status).toBe('PAUSED');
    await api('PUT', '/sync/update-connection-frequency', {
      provider_config_key: 'lab',
      connection_id: 'c1',
      sync: 'manual',
      frequency: null,
    });
  });

  it('a trigger during a run queues exactly one follow-up, never a second run at once', async () => {
    const before = await waitForIdle(api, 'lab', 'c1', 'auto');
    workDelayMs = 2_000;
    try {
      for (let index = 0; index < 4; index += 1) {
        expect(await client.triggerSync('lab', ['auto'], 'c1')).toMatchObject({ success: true });
        await sleep(300);
      }
      await waitForRun(api, 'lab', 'c1', 'auto', before);
      await sleep(500);
      await waitForIdle(api, 'lab', 'c1', 'auto');
      await sleep(3_000);
      const runs = (await listRuns(api, 'lab', 'c1', 'auto')).filter(
        (run) => Number(run.id) > before,
      );
      expect(runs).toHaveLength(2);
      const [second, first] = runs;
      expect(Date.parse(second?.started_at ?? '')).toBeGreaterThanOrEqual(
        Date.parse(first?.finished_at ?? ''),
      );
    } finally {
      workDelayMs = 0;
    }
  });

  it('a frequency override moves the next run and null reverts to the default', async () => {
    const set = await api<{ frequency: string }>('PUT', '/sync/update-connection-frequency', {
      provider_config_key: 'lab',
      connection_id: 'c1',
      sync: 'auto',
      frequency: '5 minutes',
    });
    expect(set).toEqual({ status: 200, body: { frequency: '5 minutes' } });
    const description = await schedule('c1', 'auto').describe();
    expect(everyOf(description)).toEqual([300_000]);
    const next = Date.parse((await status('c1', ['auto']))[0]?.nextScheduledSyncAt ?? '');
    expect(next - Date.now()).toBeLessThanOrEqual(300_000);
    expect((await status('c1', ['auto']))[0]?.frequency).toBe('5 minutes');

    // The override survives a redeploy that changes the default.
    await deployScripts(api, [
      script('auto', "frequency: '2h'"),
      script('manual', "frequency: '3h', autoStart: false"),
    ]);
    expect(everyOf(await schedule('c1', 'auto').describe())).toEqual([300_000]);
    expect(everyOf(await schedule('c1', 'manual').describe())).toEqual([10_800_000]);

    expect(await client.updateSyncConnectionFrequency('lab', 'auto', 'c1', null)).toEqual({
      frequency: '2h',
    });
    expect(everyOf(await schedule('c1', 'auto').describe())).toEqual([7_200_000]);

    for (const [frequency, message] of [
      ['5 parsecs', /must be/],
      ['1s', /at least 2s/],
      ['', /must be/],
    ] as const) {
      const bad = await api<{
        error: { code: string; errors: { path: string; message: string }[] };
      }>('PUT', '/sync/update-connection-frequency', {
        provider_config_key: 'lab',
        connection_id: 'c1',
        sync: 'auto',
        frequency,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.errors[0]?.path).toBe('frequency');
      expect(bad.body.error.errors[0]?.message).toMatch(message);
    }
    const unknown = await api<{ error: { code: string } }>(
      'PUT',
      '/sync/update-connection-frequency',
      {
        provider_config_key: 'lab',
        connection_id: 'c1',
        sync: 'nope',
        frequency: '1h',
      },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('sync_not_found');
  });

  it('sends one signed webhook per changed model, retried until a failing receiver accepts it', async () => {
    const received: { body: string; headers: Record<string, string | string[] | undefined> }[] = [];
    let refusals = 2;
    const receiver = await startLoopbackServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      if (refusals > 0) {
        refusals -= 1;
        json(response, 503, { down: true });
        return;
      }
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers });
      json(response, 200, { ok: true });
    });
    try {
      const rotated = await api<{ webhook_secret: string }>('POST', '/environment/webhook-secret');
      const secret = rotated.body.webhook_secret;
      await client.updateEnvironment({ webhook_url: `${receiver.url}/hooks` });
      const run = await runSync(api, 'lab', 'c1', 'manual');
      expect(run.results).toEqual({ Tick: { added: 1, updated: 0, deleted: 0 } });

      const deadline = Date.now() + 30_000;
      while (received.length === 0 && Date.now() < deadline) await sleep(200);
      expect(refusals).toBe(0);
      expect(received).toHaveLength(1);
      const [delivery] = received;
      const payload = JSON.parse(delivery?.body ?? '{}') as { modifiedAfter: string };
      expect(payload).toEqual({
        type: 'sync',
        connectionId: 'c1',
        providerConfigKey: 'lab',
        syncName: 'manual',
        model: 'Tick',
        responseResults: { added: 1, updated: 0, deleted: 0 },
        syncType: 'INCREMENTAL',
        modifiedAfter: run.started_at,
      });
      expect(
        verifyWebhookSignature({
          secret,
          body: delivery?.body ?? '',
          headers: delivery?.headers ?? {},
        }),
      ).toBe(true);
      expect(
        verifyWebhookSignature({
          secret: 'whsec_wrong',
          body: delivery?.body ?? '',
          headers: delivery?.headers ?? {},
        }),
      ).toBe(false);

      // modifiedAfter used as delta gives exactly what the run changed.
      const changed = await client.listRecords({
        providerConfigKey: 'lab',
        connectionId: 'c1',
        model: 'Tick',
        delta: payload.modifiedAfter,
      });
      expect(changed.records).toHaveLength(1);
      const all = await client.listRecords({
        providerConfigKey: 'lab',
        connectionId: 'c1',
        model: 'Tick',
      });
      expect(all.records.length).toBeGreaterThan(1);

      // A run that changes nothing sends nothing.
      await client.updateEnvironment({ webhook_url: null });
    } finally {
      await receiver.stop();
    }
  });

  it('the reconciler restores a schedule deleted behind Junction’s back', async () => {
    await schedule('c1', 'manual').delete();
    await expect(schedule('c1', 'manual').describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        const restored = await schedule('c1', 'manual').describe();
        expect(restored.state.paused).toBe(true);
        expect(everyOf(restored)).toEqual([10_800_000]);
        break;
      } catch (error) {
        if (!(error instanceof ScheduleNotFoundError) || Date.now() > deadline) throw error;
        await sleep(250);
      }
    }
  });

  it('deleting a connection deletes its schedules, cancels its running run and removes its records', async () => {
    await importConnection('c2');
    await waitForRun(api, 'lab', 'c2', 'auto');
    workDelayMs = 10_000;
    const calls = workCalls;
    try {
      await api('POST', '/sync/trigger', {
        provider_config_key: 'lab',
        connection_id: 'c2',
        syncs: ['auto'],
      });
      while (workCalls === calls) await sleep(50);
      const [row] = await queryDatabase<{ id: number }>(
        app.database.url,
        "SELECT id FROM connections WHERE connection_id = 'c2'",
      );
      const connectionRowId = row?.id;
      await client.deleteConnection('lab', 'c2');
      await expect(schedule('c2', 'auto').describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
      await expect(schedule('c2', 'manual').describe()).rejects.toBeInstanceOf(
        ScheduleNotFoundError,
      );
      // The run was cancelled: its workflow ends within a few heartbeats.
      const running = async () => {
        const ids = [];
        for await (const workflow of temporal.client.workflow.list({
          query: `JunctionConnection = "c2" AND TaskQueue = "${app.taskQueue}" AND ExecutionStatus = "Running"`,
        })) {
          ids.push(workflow.workflowId);
        }
        return ids;
      };
      const deadline = Date.now() + 20_000;
      while ((await running()).length > 0 && Date.now() < deadline) await sleep(250);
      expect(await running()).toEqual([]);
      const cancelled = [];
      for await (const workflow of temporal.client.workflow.list({
        query: `JunctionConnection = "c2" AND TaskQueue = "${app.taskQueue}" AND ExecutionStatus = "Canceled"`,
      })) {
        cancelled.push(workflow.workflowId);
      }
      expect(cancelled).toHaveLength(1);
      const left = await queryDatabase<{ records: string; runs: string; states: string }>(
        app.database.url,
        `SELECT (SELECT count(*) FROM records WHERE connection_id = $1) AS records,
                (SELECT count(*) FROM sync_runs WHERE connection_id = $1) AS runs,
                (SELECT count(*) FROM sync_states WHERE connection_id = $1) AS states`,
        [connectionRowId],
      );
      expect(left[0]).toEqual({ records: '0', runs: '0', states: '0' });
      // The other connection is untouched.
      expect((await schedule('c1', 'auto').describe()).state.paused).toBe(false);
    } finally {
      workDelayMs = 0;
    }
  });

  it('answers 404 naming unknown syncs or connections, 400 for a bad status query', async () => {
    const sync = await api<{ error: { code: string; message: string } }>('POST', '/sync/start', {
      provider_config_key: 'lab',
      connection_id: 'c1',
      syncs: ['auto', 'ghost'],
    });
    expect(sync.status).toBe(404);
    expect(sync.body.error.message).toContain('"ghost"');
    const connection = await api<{ error: { code: string } }>('POST', '/sync/pause', {
      provider_config_key: 'lab',
      connection_id: 'nobody',
      syncs: [],
    });
    expect(connection.status).toBe(404);
    expect(connection.body.error.code).toBe('connection_not_found');
    const badQuery = await api('GET', '/sync/status?provider_config_key=lab');
    expect(badQuery.status).toBe(400);
  });
});
