import { createAction, z } from '../../src/scripts/sdk';

/** The bench's action: answers with its input. */
export default createAction({
  name: 'echo',
  integration: 'latency',
  input: z.object({ n: z.number(), text: z.string() }),
  timeout: '30s',
  exec(_ctx, input) {
    return Promise.resolve(input);
  },
});
