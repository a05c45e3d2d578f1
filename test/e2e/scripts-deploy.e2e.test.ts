import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { SyncDefinitionJson, ActionDefinitionJson } from '../../src/scripts/script.types';
import { ScriptsService } from '../../src/scripts/scripts.service';
import { startTestApp, type TestApp } from '../harness/test-app';

interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

const issueModel = {
  type: 'object',
  properties: { id: { type: 'string' }, title: { type: 'string' } },
  required: ['id', 'title'],
};

function syncDefinition(overrides: Partial<SyncDefinitionJson> = {}): SyncDefinitionJson {
  return {
    kind: 'sync',
    name: 'issues',
    integration: 'github',
    frequency: '1h',
    frequency_ms: 3_600_000,
    auto_start: true,
    type: 'incremental',
    track_deletes: false,
    models: { GithubIssue: issueModel },
    ...overrides,
  };
}

function actionDefinition(overrides: Partial<ActionDefinitionJson> = {}): ActionDefinitionJson {
  return {
    kind: 'action',
    name: 'create-issue',
    integration: 'github',
    input_schema: { type: 'object', properties: { title: { type: 'string' } } },
    retries: 0,
    ...overrides,
  };
}

const script = (definition: SyncDefinitionJson | ActionDefinitionJson, bundle = 'v1') => ({
  kind: definition.kind,
  name: definition.name,
  integration: definition.integration,
  definition,
  bundle: `module.exports = { default: ${JSON.stringify(bundle)} };`,
});

describe('POST /scripts/deploy and GET /scripts', () => {
  let app: TestApp;
  let scripts: ScriptsService;
  let devId: number;

  const call = async (
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    key = app.devKey,
  ): Promise<Reply> => {
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const deploy = (body: unknown, key?: string) => call('POST', '/scripts/deploy', body, key);
  const listed = async (query = '', key?: string) =>
    (await call('GET', `/scripts${query}`, undefined, key)).body.scripts as Array<
      Record<string, unknown>
    >;

  beforeAll(async () => {
    app = await startTestApp();
    scripts = app.service.context.get(ScriptsService);
    for (const key of ['github', 'linear']) {
      await app.client().createIntegration({ provider: 'github', provider_config_key: key });
    }
    await app.client(app.prodKey).createIntegration({
      provider: 'github',
      provider_config_key: 'github',
    });
    const rows: Array<{ id: number }> = await app.service.context
      .get<DataSource>(getDataSourceToken())
      .query("SELECT id FROM environments WHERE name = 'dev'");
    devId = rows[0]!.id;
  });
  afterAll(() => app.stop());

  it('creates version 1, leaves an unchanged script alone and versions a change', async () => {
    const first = await deploy({
      scripts: [script(syncDefinition()), script(actionDefinition())],
    });
    expect(first).toEqual({
      status: 200,
      body: {
        created: [
          { integration: 'github', kind: 'sync', name: 'issues', version: 1 },
          { integration: 'github', kind: 'action', name: 'create-issue', version: 1 },
        ],
        updated: [],
        unchanged: [],
        removed: [],
      },
    });

    const again = await deploy({
      scripts: [script(syncDefinition()), script(actionDefinition())],
    });
    expect(again.body).toMatchObject({ created: [], updated: [], removed: [] });
    expect(again.body.unchanged).toHaveLength(2);

    const changed = await deploy({
      scripts: [script(syncDefinition({ frequency: '30m' }), 'v2'), script(actionDefinition())],
    });
    expect(changed.body).toMatchObject({
      created: [],
      updated: [{ integration: 'github', kind: 'sync', name: 'issues', version: 2 }],
      unchanged: [{ integration: 'github', kind: 'action', name: 'create-issue', version: 1 }],
      removed: [],
    });

    const current = await scripts.current(devId, 'github', 'sync', 'issues');
    expect(current).toMatchObject({ version: 2, providerConfigKey: 'github', kind: 'sync' });
    // The server reads the frequency itself.
    expect(current?.definition).toMatchObject({ frequency: '30m', frequency_ms: 1_800_000 });
    expect(current?.bundle).toContain('"v2"');
    const old = await scripts.version(current!.scriptId, 1);
    expect(old).toMatchObject({ version: 1, definition: { frequency: '1h' } });
    expect(old?.bundle).toContain('"v1"');
    expect(old?.hash).not.toBe(current?.hash);
    expect(await scripts.version(current!.scriptId, 3)).toBeNull();
    expect((await scripts.list(devId, { kind: 'action' })).map((s) => s.name)).toEqual([
      'create-issue',
    ]);

    const list = await listed();
    expect(list).toEqual([
      expect.objectContaining({ integration: 'github', kind: 'action', name: 'create-issue' }),
      expect.objectContaining({
        integration: 'github',
        kind: 'sync',
        name: 'issues',
        version: 2,
        hash: current?.hash,
        deployed_at: current?.deployedAt.toISOString(),
        definition: expect.objectContaining({ models: { GithubIssue: issueModel } }) as unknown,
      }),
    ]);
    expect(list[0]).not.toHaveProperty('bundle');
    expect((await listed('?kind=sync')).map((s) => s.name)).toEqual(['issues']);
    expect(await listed('?provider_config_key=linear')).toEqual([]);
    expect((await call('GET', '/scripts?kind=job')).body).toMatchObject({
      error: { code: 'invalid_request', errors: [{ path: 'kind' }] },
    });
  });

  it('refuses removals without allow_removals, changing nothing, and applies them with it', async () => {
    const before = await listed();
    const refused = await deploy({
      scripts: [script(actionDefinition()), script(syncDefinition({ name: 'new-sync' }))],
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'confirmation_required',
      payload: { removed: [{ integration: 'github', kind: 'sync', name: 'issues', version: 2 }] },
    });
    expect((refused.body.error as { message: string }).message).toContain('sync "issues"');
    expect(await listed()).toEqual(before);

    const applied = await deploy({
      scripts: [script(actionDefinition()), script(syncDefinition({ name: 'new-sync' }))],
      allow_removals: true,
    });
    expect(applied.body).toMatchObject({
      created: [{ name: 'new-sync', version: 1 }],
      unchanged: [{ name: 'create-issue' }],
      removed: [{ name: 'issues', version: 2 }],
    });
    expect(await scripts.current(devId, 'github', 'sync', 'issues')).toBeNull();
    expect((await listed()).map((s) => s.name)).toEqual(['create-issue', 'new-sync']);
  });

  it('rejects a script of an unknown integration and stores nothing', async () => {
    const before = await listed();
    const reply = await deploy({
      scripts: [
        script(actionDefinition()),
        script(syncDefinition({ name: 'new-sync' })),
        script(syncDefinition({ integration: 'jira', name: 'tickets' })),
        script(syncDefinition({ name: 'extra' }), 'changed'),
      ],
    });
    expect(reply.status).toBe(422);
    expect(reply.body.error).toMatchObject({
      code: 'unknown_integration',
      errors: [{ path: 'scripts.2.integration' }],
    });
    expect((reply.body.error as { message: string }).message).toContain('"jira"');
    expect(await listed()).toEqual(before);
  });

  it('names the field of every invalid definition with a 400', async () => {
    const before = await listed();
    const reply = await deploy({
      scripts: [
        script(syncDefinition({ frequency: 'often' })),
        script(syncDefinition({ name: 'empty', models: {} })),
        script(syncDefinition({ name: 'deletes', track_deletes: true })),
        script(
          syncDefinition({ name: 'no-id', models: { Thing: { type: 'object', properties: {} } } }),
        ),
        { ...script(actionDefinition()), definition: { ...actionDefinition(), retries: -1 } },
        { ...script(actionDefinition({ name: 'other' })), name: 'mismatch' },
        script(actionDefinition({ name: 'create-issue' })),
      ],
    });
    expect(reply.status).toBe(400);
    const error = reply.body.error as { code: string; errors: Array<{ path: string }> };
    expect(error.code).toBe('invalid_request');
    expect(error.errors.map((e) => e.path)).toEqual([
      'scripts.0.definition.frequency',
      'scripts.1.definition.models',
      'scripts.2.definition.track_deletes',
      'scripts.3.definition.models.Thing',
      'scripts.4.definition.retries',
      'scripts.5.definition.name',
      'scripts.6.name',
    ]);

    const shape = await deploy({
      scripts: [{ kind: 'job', name: 'bad name!', integration: 'github', bundle: '' }],
      allow_removals: 'yes',
    });
    expect(shape.status).toBe(400);
    expect(
      (shape.body.error as { errors: Array<{ path: string }> }).errors.map((e) => e.path),
    ).toEqual(
      expect.arrayContaining([
        'scripts.0.kind',
        'scripts.0.name',
        'scripts.0.definition',
        'scripts.0.bundle',
        'allow_removals',
      ]),
    );
    for (const body of [
      {},
      [],
      { scripts: 'all' },
      { scripts: [null] },
      { scripts: [{ ...script(syncDefinition()), definition: [] }] },
      { scripts: [{ ...script(syncDefinition()), kind: 'action' }] },
      {
        scripts: [
          { ...script(syncDefinition()), definition: { ...syncDefinition(), models: 'x' } },
        ],
      },
      { scripts: [script(syncDefinition({ description: 'nul \u0000 here' }))] },
      { scripts: [{ ...script(syncDefinition()), bundle: 'nul \u0000 here' }] },
      { scripts: [script(syncDefinition())], extra: true },
    ]) {
      const reply = await deploy(body);
      expect({
        body,
        status: reply.status,
        code: (reply.body.error as { code?: string }).code,
      }).toEqual({
        body,
        status: 400,
        code: 'invalid_request',
      });
    }
    expect(await listed()).toEqual(before);
  });

  it('accepts bundles larger than the default body limit and refuses one over the bundle limit', async () => {
    const large = 'x'.repeat(4 * 1024 * 1024);
    const current = await listed();
    const keep = current.map((s) =>
      s.kind === 'sync'
        ? script(syncDefinition({ name: String(s.name) }))
        : script(actionDefinition()),
    );
    const reply = await deploy({
      scripts: [
        ...keep,
        script(syncDefinition({ name: 'big-one' }), large),
        script(syncDefinition({ name: 'big-two' }), large),
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.created).toHaveLength(2);

    const tooLarge = await deploy({
      scripts: [...keep, script(syncDefinition({ name: 'huge' }), 'x'.repeat(6 * 1024 * 1024))],
      allow_removals: true,
    });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.error).toMatchObject({ errors: [{ path: 'scripts.2.bundle' }] });
  });

  it('serialises concurrent deploys of one environment', async () => {
    const current = await scripts.list(devId);
    const keep = current.map((s) => ({
      kind: s.kind,
      name: s.name,
      integration: s.providerConfigKey,
      definition: s.definition,
      bundle: s.bundle,
    }));
    const replies = await Promise.all(
      Array.from({ length: 4 }, () =>
        deploy({ scripts: [...keep, script(syncDefinition({ name: 'raced' }))] }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    expect(replies.flatMap((reply) => reply.body.created as unknown[])).toEqual([
      { integration: 'github', kind: 'sync', name: 'raced', version: 1 },
    ]);
  });

  it('keeps environments apart', async () => {
    expect(await listed('', app.prodKey)).toEqual([]);
    const prod = await deploy({ scripts: [script(syncDefinition())] }, app.prodKey);
    expect(prod.body).toMatchObject({ created: [{ name: 'issues', version: 1 }], removed: [] });
    expect((await listed('', app.prodKey)).map((s) => s.name)).toEqual(['issues']);
    expect((await listed()).map((s) => s.name)).not.toContain('issues');
    expect(await scripts.current(devId, 'github', 'sync', 'issues')).toBeNull();
  });
});
