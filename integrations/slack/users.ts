import { createSync, z } from '../../src/scripts/sdk';

const SlackUser = z.object({
  id: z.string(),
  name: z.string(),
  real_name: z.string().nullable(),
  email: z.string().nullable(),
  is_bot: z.boolean(),
  is_admin: z.boolean(),
  time_zone: z.string().nullable(),
  updated: z.number().int(),
});

interface ApiMember {
  id: string;
  name: string;
  deleted?: boolean;
  is_bot?: boolean;
  is_admin?: boolean;
  tz?: string;
  updated?: number;
  profile?: { real_name?: string; email?: string };
}

/**
 * Every member of the Slack workspace, read in full on each run (users.list has no "changed
 * since" filter). Deletion tracking marks members that are gone — or deactivated, which Slack
 * reports with `deleted: true` — as deleted in the records store.
 */
export default createSync({
  name: 'slack-users',
  integration: 'slack',
  description: 'Workspace members; deactivated or removed members are marked deleted',
  frequency: '6h',
  autoStart: true,
  type: 'full',
  trackDeletes: true,
  models: { SlackUser },
  async exec(ctx) {
    const pages = ctx.paginate<ApiMember>({
      endpoint: '/users.list',
      paginate: {
        type: 'cursor',
        cursorPathInResponse: 'response_metadata.next_cursor',
        cursorNameInRequest: 'cursor',
        responsePath: 'members',
        limit: 200,
        limitNameInRequest: 'limit',
      },
      retries: 5,
    });
    let active = 0;
    for await (const members of pages) {
      const users = members
        .filter((member) => !member.deleted)
        .map((member) => ({
          id: member.id,
          name: member.name,
          real_name: member.profile?.real_name ?? null,
          email: member.profile?.email ?? null,
          is_bot: member.is_bot ?? false,
          is_admin: member.is_admin ?? false,
          time_zone: member.tz ?? null,
          updated: member.updated ?? 0,
        }));
      await ctx.batchSave(users, 'SlackUser');
      active += users.length;
    }
    ctx.log(`Saved ${active} active members`);
  },
});
