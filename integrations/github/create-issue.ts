import { ActionError, createAction, z } from '../../src/scripts/sdk';

/**
 * Opens an issue in one of the connection's repositories. A repository outside
 * `metadata.repositories`, or one GitHub does not know, fails with an ActionError the caller
 * receives as `action_failure`.
 */
export default createAction({
  name: 'github-create-issue',
  integration: 'github',
  description: 'Opens an issue and answers with its number and URL',
  input: z.object({
    repository: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'owner/name'),
    title: z.string().min(1),
    body: z.string().optional(),
    labels: z.array(z.string()).optional(),
  }),
  output: z.object({ id: z.number(), number: z.number(), url: z.string() }),
  timeout: '30s',
  async exec(ctx, input) {
    const { repositories = [] } = await ctx.getMetadata<{ repositories?: string[] }>();
    if (!repositories.includes(input.repository)) {
      throw new ActionError(
        {
          message: `${input.repository} is not one of this connection's repositories`,
          repositories,
        },
        403,
      );
    }
    try {
      const created = await ctx.post<{ id: number; number: number; html_url: string }>({
        endpoint: `/repos/${input.repository}/issues`,
        data: { title: input.title, body: input.body, labels: input.labels },
        retries: 0,
      });
      return { id: created.data.id, number: created.data.number, url: created.data.html_url };
    } catch (error) {
      const status = (error as { response?: { status?: number } }).response?.status;
      if (status === 404 || status === 410 || status === 422) {
        throw new ActionError(
          { message: `GitHub refused the issue (${status})` },
          status === 422 ? 422 : 404,
        );
      }
      throw error;
    }
  },
});
