import { TemporalClientService } from '../../src/temporal/temporal-client.service';
import { pingWorkflow } from '../../workflows';
import { harnessValue } from '../harness/state';
import { startTestApp, TEST_ENCRYPTION_KEYS, type TestApp } from '../harness/test-app';
import { startJunctionProcess, type JunctionProcess } from '../harness/junction-process';

describe('worker process', () => {
  let app: TestApp;
  let worker: JunctionProcess | undefined;

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await worker?.stop('SIGKILL');
    await app.stop();
  });

  it("runs a workflow started through the API's Temporal client, then drains and exits 0 on SIGTERM", async () => {
    worker = await startJunctionProcess('worker', {
      DATABASE_URL: app.database.url,
      TEMPORAL_ADDRESS: harnessValue('temporalAddress'),
      TEMPORAL_TASK_QUEUE: app.taskQueue,
      ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
    });
    const temporal = app.service.context.get(TemporalClientService);
    const result = await temporal.client.workflow.execute(pingWorkflow, {
      taskQueue: temporal.taskQueue,
      workflowId: `ping-${app.taskQueue}`,
      args: [{ environment: 'prod', message: 'hello' }],
      workflowExecutionTimeout: '30 seconds',
    });
    const prod = await app.client(app.prodKey).getEnvironment();
    expect(prod.name).toBe('prod');
    expect(result.message).toBe('hello');
    expect(result.workerProcessId).toBe(worker.child.pid);
    expect(result.workerProcessId).not.toBe(process.pid);
    expect(result.environmentId).toBeGreaterThan(0);

    expect(await worker.stop('SIGTERM')).toBe(0);
    expect(worker.output()).toContain('Worker drained and stopped');
  });
});
