import { createSync, z } from '../../src/scripts/sdk';

const GithubIssue = z.object({
  id: z.string(),
  number: z.number().int(),
  repository: z.string(),
  title: z.string(),
  state: z.enum(['open', 'closed']),
  author: z.string().nullable(),
  labels: z.array(z.string()),
  comments: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  closed_at: z.string().nullable(),
  url: z.string(),
});

interface ApiIssue {
  id: number;
  number: number;
  title: string;
  state: 'open' | 'closed';
  user: { login: string } | null;
  labels: ({ name: string } | string)[];
  comments: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  html_url: string;
  pull_request?: unknown;
}

/** Where a run stopped: the repository and the next page's URL (from the Link header). */
interface Checkpoint {
  repository: string;
  next: string;
}

/**
 * Issues (pull requests left out) of the repositories named in the connection's metadata
 * (`{ "repositories": ["owner/name"] }`). Incremental: after the first run only issues updated
 * since the last successful run are read. Pages follow GitHub's `Link` header; the next page is
 * checkpointed, so a run taken over by another worker resumes where it stopped.
 */
export default createSync({
  name: 'github-issues',
  integration: 'github',
  description: 'Issues of the repositories listed in metadata.repositories',
  frequency: '1h',
  autoStart: true,
  type: 'incremental',
  models: { GithubIssue },
  async exec(ctx) {
    const { repositories = [] } = await ctx.getMetadata<{ repositories?: string[] }>();
    const resume = await ctx.getCheckpoint<Checkpoint>();
    let skipping = resume !== null && repositories.includes(resume.repository);
    for (const repository of repositories) {
      if (skipping && repository !== resume?.repository) continue;
      const resumeHere = skipping && resume !== null;
      skipping = false;
      const params: Record<string, string> = { state: 'all', sort: 'updated', direction: 'asc' };
      if (ctx.lastSyncDate) params.since = ctx.lastSyncDate.toISOString();
      const pages = ctx.paginate<ApiIssue>({
        endpoint: resumeHere && resume ? resume.next : `/repos/${repository}/issues`,
        params: resumeHere ? undefined : params,
        paginate: { type: 'link', limit: 100, limitNameInRequest: 'per_page' },
        retries: 5,
        onPage: async ({ next }) => {
          if (typeof next === 'string') await ctx.saveCheckpoint({ repository, next });
        },
      });
      let saved = 0;
      for await (const page of pages) {
        const issues = page
          .filter((issue) => issue.pull_request === undefined)
          .map((issue) => ({
            id: String(issue.id),
            number: issue.number,
            repository,
            title: issue.title,
            state: issue.state,
            author: issue.user?.login ?? null,
            labels: issue.labels.map((label) => (typeof label === 'string' ? label : label.name)),
            comments: issue.comments,
            created_at: issue.created_at,
            updated_at: issue.updated_at,
            closed_at: issue.closed_at,
            url: issue.html_url,
          }));
        await ctx.batchSave(issues, 'GithubIssue');
        saved += issues.length;
      }
      ctx.log(`Saved ${saved} issues of ${repository}`);
    }
    await ctx.saveCheckpoint(null);
  },
});
