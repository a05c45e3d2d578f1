import { createSync, z } from '../../src/scripts/sdk';

/** A sync that saves nothing: what a run costs by itself (scheduling, bookkeeping, the thread). */
export default createSync({
  name: 'noop',
  integration: 'latency',
  frequency: '1h',
  type: 'incremental',
  models: { Nothing: z.object({ id: z.string() }) },
  async exec() {
    // Nothing to fetch.
  },
});
