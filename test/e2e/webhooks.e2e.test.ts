import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { getDataSourceToken } from '@nestjs/typeorm';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import { createWebhookActivities, WEBHOOK_RETRY_POLICY } from '../../activities/webhook.activities';
import { type SyncWebhookPayload, verifyWebhookSignature } from '../../src/client';
import { ReencryptionRepository } from '../../src/crypto/reencryption.repository';
import { ReencryptionService } from '../../src/crypto/reencryption.service';
import { generateEncryptionKey, parseEncryptionKeys, SecretBox } from '../../src/crypto/secret-box';
import { ENCRYPTION_CONTEXTS } from '../../src/crypto/encryption-contexts';
import { EnvironmentsRepository } from '../../src/environments/environments.repository';
import { WebhookDeliveryError } from '../../src/webhooks/webhook-delivery.error';
import { WebhooksService } from '../../src/webhooks/webhooks.service';
import { startLoopbackServer, type LoopbackServer } from '../fixtures/loopback-server';
import { queryDatabase } from '../harness/databases';
import { freePort } from '../harness/ports';
import { TEST_ENCRYPTION_KEYS, startTestApp, type TestApp } from '../harness/test-app';

const TIMEOUT_MS = 500;
/** The mock activity environment logs every failed attempt; the assertions say enough. */
const QUIET = new DefaultLogger('ERROR');

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A webhook receiver that records every request and answers with the status its path asks for. */
class Receiver {
  readonly received: Received[] = [];
  /** Statuses of the next answers of /flaky, in order; 200 once empty. */
  flakyStatuses: number[] = [];
  private server: LoopbackServer | undefined;

  async start(): Promise<this> {
    this.server = await startLoopbackServer((request, response) => this.handle(request, response));
    return this;
  }

  get url(): string {
    return this.server?.url ?? '';
  }

  stop(): Promise<void> {
    return this.server?.stop() ?? Promise.resolve();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = request.url ?? '';
    this.received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString() });
    const route = path.split('?')[0];
    if (route === '/hang') return; // never answers
    const status =
      route === '/fail' ? 500 : route === '/flaky' ? (this.flakyStatuses.shift() ?? 200) : 200;
    response.writeHead(status, { 'content-type': 'text/plain' });
    response.end(status === 200 ? 'ok' : `receiver says no (${status})`);
  }
}

function payload(model = 'Contact'): SyncWebhookPayload {
  return {
    type: 'sync',
    connectionId: 'conn-1',
    providerConfigKey: 'hubspot',
    syncName: 'contacts',
    model,
    responseResults: { added: 3, updated: 1, deleted: 0 },
    syncType: 'INCREMENTAL',
    modifiedAfter: '2025-01-01T12:00:00.000Z',
  };
}

describe('webhooks', () => {
  let app: TestApp;
  let receiver: Receiver;
  let webhooks: WebhooksService;
  let devId: number;
  let prodId: number;

  const rotate = async (key = app.devKey) => {
    const response = await fetch(`${app.url}/environment/webhook-secret`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    return { status: response.status, body: (await response.json()) as { webhook_secret: string } };
  };
  const lastReceived = (): Received => receiver.received[receiver.received.length - 1]!;
  const verifiedWith = (secret: string, received = lastReceived()): boolean =>
    verifyWebhookSignature({ secret, body: received.body, headers: received.headers });

  beforeAll(async () => {
    app = await startTestApp({ env: { WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) } });
    receiver = await new Receiver().start();
    webhooks = app.service.context.get(WebhooksService);
    const environments = app.service.context.get(EnvironmentsRepository);
    devId = (await environments.findByName('dev'))!.id;
    prodId = (await environments.findByName('prod'))!.id;
  });
  afterAll(async () => {
    await receiver.stop();
    await app.stop();
  });

  it('rotates the secret, returns it once, and never shows it in the environment', async () => {
    const first = await rotate();
    expect(first.status).toBe(200);
    expect(first.body.webhook_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const second = await rotate();
    expect(second.body.webhook_secret).not.toBe(first.body.webhook_secret);

    const response = await fetch(`${app.url}/environment`, {
      headers: { authorization: `Bearer ${app.devKey}` },
    });
    const text = await response.text();
    expect(text).not.toContain(first.body.webhook_secret);
    expect(text).not.toContain(second.body.webhook_secret);
    expect(text).not.toContain('webhook_secret"');

    const stored = await queryDatabase<{ webhook_secret: string }>(
      app.database.url,
      'SELECT webhook_secret FROM environments WHERE id = $1',
      [devId],
    );
    expect(stored[0]?.webhook_secret).toMatch(/^v1\.test1\./);
    expect(stored[0]?.webhook_secret).not.toContain(second.body.webhook_secret);
  });

  it('documents the rotation route and answers bad input with a 4xx envelope', async () => {
    const docs = (await (await fetch(`${app.url}/docs/openapi.json`)).json()) as {
      paths: Record<string, { post?: { responses?: Record<string, unknown> } }>;
    };
    expect(docs.paths['/environment/webhook-secret']?.post?.responses).toHaveProperty('200');

    const badJson = await fetch(`${app.url}/environment/webhook-secret`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.devKey}`, 'content-type': 'application/json' },
      body: '{',
    });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { error: { code: string } }).error.code).toMatch(
      /^invalid_(json|request)$/,
    );
  });

  it('reports no_webhook_url when the environment has none', async () => {
    await app.client(app.prodKey).updateEnvironment({ webhook_url: null });
    const before = receiver.received.length;
    await expect(webhooks.deliver(prodId, payload())).resolves.toBe('no_webhook_url');
    expect(receiver.received).toHaveLength(before);
  });

  it('POSTs the payload signed with the current secret; rotation invalidates the old one', async () => {
    await app.client().updateEnvironment({ webhook_url: `${receiver.url}/hooks?token=abc` });
    const oldSecret = (await rotate()).body.webhook_secret;

    await expect(webhooks.deliver(devId, payload())).resolves.toBe('sent');
    const delivered = lastReceived();
    expect(delivered.path).toBe('/hooks?token=abc');
    expect(delivered.headers['content-type']).toBe('application/json');
    expect(delivered.headers['user-agent']).toBe('Junction-Webhooks');
    expect(delivered.headers['x-junction-timestamp']).toMatch(/^\d+$/);
    expect(delivered.headers['x-junction-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(JSON.parse(delivered.body)).toEqual(payload());
    expect(verifiedWith(oldSecret)).toBe(true);
    expect(verifiedWith(oldSecret, { ...delivered, body: delivered.body.replace('3', '4') })).toBe(
      false,
    );

    const newSecret = (await rotate()).body.webhook_secret;
    await webhooks.deliver(devId, payload('Company'));
    expect(JSON.parse(lastReceived().body)).toMatchObject({ model: 'Company' });
    expect(verifiedWith(newSecret)).toBe(true);
    expect(verifiedWith(oldSecret)).toBe(false);
    // The old secret no longer verifies the earlier delivery's replay either, once it is stale.
    expect(
      verifyWebhookSignature({
        secret: oldSecret,
        body: delivered.body,
        headers: delivered.headers,
        now: Date.now() + 301_000,
      }),
    ).toBe(false);
  });

  it('creates one secret on first use when none was ever rotated, even for concurrent deliveries', async () => {
    await app.client(app.prodKey).updateEnvironment({ webhook_url: `${receiver.url}/prod` });
    const before = receiver.received.length;
    await Promise.all([webhooks.deliver(prodId, payload()), webhooks.deliver(prodId, payload())]);
    const deliveries = receiver.received.slice(before);
    expect(deliveries).toHaveLength(2);

    const [stored] = await queryDatabase<{ webhook_secret: string }>(
      app.database.url,
      'SELECT webhook_secret FROM environments WHERE id = $1',
      [prodId],
    );
    const generated = new SecretBox(parseEncryptionKeys(TEST_ENCRYPTION_KEYS)).decrypt(
      stored!.webhook_secret,
      ENCRYPTION_CONTEXTS.webhookSecret,
    );
    expect(generated).toMatch(/^whsec_/);
    for (const delivery of deliveries) expect(verifiedWith(generated, delivery)).toBe(true);

    const rotated = (await rotate(app.prodKey)).body.webhook_secret;
    expect(rotated).not.toBe(generated);
    await webhooks.deliver(prodId, payload());
    expect(verifiedWith(rotated)).toBe(true);
  });

  it('throws a delivery error naming the status on a non-2xx answer, without the URL query', async () => {
    await app.client().updateEnvironment({ webhook_url: `${receiver.url}/fail?token=hidden` });
    const error = await webhooks.deliver(devId, payload()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebhookDeliveryError);
    expect(error).toMatchObject({ code: 'webhook_delivery_failed', receiverStatus: 500 });
    expect((error as Error).message).toMatch(/answered HTTP 500: receiver says no \(500\)/);
    expect((error as Error).message).not.toContain('hidden');
  });

  it('throws a delivery error on a refused connection and on a receiver that never answers', async () => {
    await app.client().updateEnvironment({ webhook_url: `http://127.0.0.1:${await freePort()}/x` });
    const refused = await webhooks.deliver(devId, payload()).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(WebhookDeliveryError);
    expect((refused as Error).message).toMatch(
      /^Webhook to 127\.0\.0\.1:\d+ failed: .*ECONNREFUSED/,
    );

    await app.client().updateEnvironment({ webhook_url: `${receiver.url}/hang` });
    const started = Date.now();
    await expect(webhooks.deliver(devId, payload())).rejects.toThrow(
      new RegExp(`no answer within ${TIMEOUT_MS} ms`),
    );
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 10);
  });

  it('runs deliverSyncWebhook as an activity: failing attempts throw retryable errors, then it is sent', async () => {
    await app.client().updateEnvironment({ webhook_url: `${receiver.url}/flaky` });
    const secret = (await rotate()).body.webhook_secret;
    receiver.flakyStatuses = [503, 503];
    const { deliverSyncWebhook } = createWebhookActivities({ webhooks });
    const input = { environmentId: devId, payload: payload() };
    const before = receiver.received.length;

    const outcomes: string[] = [];
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      // What the worker does on each retry: a new attempt of the same activity and input.
      const environment = new MockActivityEnvironment({ attempt }, { logger: QUIET });
      const outcome = environment.run<[typeof input], string, typeof deliverSyncWebhook>(
        deliverSyncWebhook,
        input,
      );
      outcomes.push(
        await outcome.catch((error: unknown) => {
          expect(error).toBeInstanceOf(WebhookDeliveryError);
          return (error as Error).message;
        }),
      );
    }
    expect(outcomes).toEqual([
      expect.stringMatching(/answered HTTP 503/),
      expect.stringMatching(/answered HTTP 503/),
      'sent',
    ]);
    const attempts = receiver.received.slice(before);
    expect(attempts).toHaveLength(3);
    for (const received of attempts) {
      expect(JSON.parse(received.body)).toEqual(payload());
      expect(verifiedWith(secret, received)).toBe(true);
    }
  });

  it('retries with a policy that outlasts a receiver down for several minutes', () => {
    expect(WEBHOOK_RETRY_POLICY).toEqual({
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '60 seconds',
      maximumAttempts: 20,
    });
    let waited = 0;
    for (let retry = 0; retry < WEBHOOK_RETRY_POLICY.maximumAttempts - 1; retry += 1) {
      waited += Math.min(2 ** retry, 60);
    }
    expect(waited).toBeGreaterThan(10 * 60);
  });

  it('re-encrypts the webhook secret with the other encrypted columns', async () => {
    const secret = (await rotate()).body.webhook_secret;
    const rotatedBox = new SecretBox(
      parseEncryptionKeys(`${generateEncryptionKey('test2')},${TEST_ENCRYPTION_KEYS}`),
    );
    const dataSource = app.service.context.get<DataSource>(getDataSourceToken());
    const reencryption = new ReencryptionService(
      new ReencryptionRepository(dataSource),
      rotatedBox,
    );
    expect(await reencryption.reencryptAll()).toBeGreaterThanOrEqual(2);
    const [stored] = await queryDatabase<{ webhook_secret: string }>(
      app.database.url,
      'SELECT webhook_secret FROM environments WHERE id = $1',
      [devId],
    );
    expect(stored?.webhook_secret).toMatch(/^v1\.test2\./);
    expect(rotatedBox.decrypt(stored!.webhook_secret, ENCRYPTION_CONTEXTS.webhookSecret)).toBe(
      secret,
    );
  });
});
