import { createSync, z } from '../../src/scripts/sdk';

/** Every minute, per connection: the load of many scheduled syncs that each save one record. */
export default createSync({
  name: 'tick',
  integration: 'load',
  frequency: '1m',
  type: 'incremental',
  models: { Tick: z.object({ id: z.string(), at: z.string() }) },
  async exec(ctx) {
    await ctx.batchSave([{ id: 'last', at: new Date().toISOString() }], 'Tick');
  },
});
