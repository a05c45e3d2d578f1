import { formatDryrun, RECORDS_SHOWN } from './dryrun-output';

const log = {
  level: 'info',
  message: 'Fetched page',
  fields: { page: 1 },
  at: '2024-05-01T08:00:00.000Z',
};

describe('dry run report', () => {
  it('shows a sync per model with its counts and records, the checkpoint and the logs', () => {
    const records = Array.from({ length: RECORDS_SHOWN + 3 }, (_, index) => ({
      id: `issue-${index}`,
      title: `Issue ${index}`,
    }));
    const text = formatDryrun(
      { kind: 'sync', name: 'issues', integration: 'github', connectionId: 'conn-1' },
      {
        models: {
          GithubIssue: { records, added: 20, updated: 2, unchanged: 1, deleted: 0 },
          GithubLabel: { records: [], added: 0, updated: 0, unchanged: 0, deleted: 4 },
        },
        checkpoint: { since: '2024-05-01' },
        logs: [log, { level: 'warn', message: 'Rate limited', at: '2024-05-01T08:00:01.000Z' }],
        duration_ms: 1234,
      },
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      'Dry run of sync "issues" (github) on connection "conn-1" in 1234 ms; nothing was saved.',
    );
    expect(text).toContain('GithubIssue: 20 added, 2 updated, 1 unchanged, 0 deleted');
    expect(text).toContain('GithubLabel: 0 added, 0 updated, 0 unchanged, 4 deleted');
    expect(text).toContain('    "id": "issue-0",');
    expect(text).toContain(`"id": "issue-${RECORDS_SHOWN - 1}"`);
    expect(text).not.toContain(`"id": "issue-${RECORDS_SHOWN}"`);
    expect(text).toContain('  … 3 more record(s); --json prints them all');
    expect(text).toContain('Checkpoint: {\n  "since": "2024-05-01"\n}');
    expect(lines.slice(-3)).toEqual([
      'Logs:',
      '  2024-05-01T08:00:00.000Z INFO  Fetched page {"page":1}',
      '  2024-05-01T08:00:01.000Z WARN  Rate limited',
    ]);
  });

  it('shows an action output', () => {
    const text = formatDryrun(
      { kind: 'action', name: 'create-issue', integration: 'github', connectionId: 'c' },
      { output: { id: '42' }, logs: [], duration_ms: 5 },
    );
    expect(text).toBe(
      [
        'Dry run of action "create-issue" (github) on connection "c" in 5 ms; nothing was saved.',
        '',
        'Output:',
        '  {',
        '    "id": "42"',
        '  }',
        '',
        'Logs: none',
      ].join('\n'),
    );
  });

  it('copes with a sync that saved nothing and had no checkpoint', () => {
    const text = formatDryrun(
      { kind: 'sync', name: 'issues', integration: 'github', connectionId: 'c' },
      { models: {}, checkpoint: null, logs: [], duration_ms: 1 },
    );
    expect(text).toContain('No records.');
    expect(text).toContain('Checkpoint: null');
  });
});
