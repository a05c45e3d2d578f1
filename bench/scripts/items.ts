import { createSync, z } from '../../src/scripts/sdk';

/** The bench's sync: every item of the fake API, 1,000 per page by cursor, checkpointed per page. */
export default createSync({
  name: 'bench-items',
  integration: 'bench',
  frequency: '1d',
  autoStart: false,
  type: 'incremental',
  models: {
    Item: z.object({
      id: z.string(),
      n: z.number().int(),
      name: z.string(),
      description: z.string(),
      tags: z.array(z.string()),
      updated_at: z.string(),
    }),
  },
  async exec(ctx) {
    const resume = await ctx.getCheckpoint<{ cursor: string }>();
    const pages = ctx.paginate<{
      id: string;
      n: number;
      name: string;
      description: string;
      tags: string[];
      updated_at: string;
    }>({
      endpoint: '/items',
      params: resume ? { cursor: resume.cursor } : undefined,
      paginate: {
        type: 'cursor',
        cursorPathInResponse: 'next_cursor',
        cursorNameInRequest: 'cursor',
        responsePath: 'items',
        limit: 1000,
        limitNameInRequest: 'limit',
      },
      onPage: async ({ next }) => {
        await ctx.saveCheckpoint(typeof next === 'string' ? { cursor: next } : null);
      },
    });
    for await (const items of pages) await ctx.batchSave(items, 'Item');
  },
});
