import type { BuiltScript } from './bundle';
import { checkScripts } from './deploy.command';
import { findScript } from './dryrun.command';
import type { SyncDefinitionJson } from '../scripts/script.types';

function sync(name: string, integration = 'github'): BuiltScript {
  const definition: SyncDefinitionJson = {
    kind: 'sync',
    name,
    integration,
    frequency: '1h',
    frequency_ms: 3_600_000,
    auto_start: true,
    type: 'incremental',
    track_deletes: false,
    models: { Issue: { type: 'object' } },
  };
  return { status: 'ok', bundle: `/* ${name} */`, definition };
}

describe('choosing the scripts of a folder', () => {
  it('lists the problems of every file and names used twice, and skips helpers', () => {
    const checked = checkScripts([
      { file: 'a.ts', built: sync('issues') },
      { file: 'b.ts', built: { status: 'invalid', problems: ['frequency: bad', 'name: bad'] } },
      { file: 'c.ts', built: sync('issues') },
      { file: 'd.ts', built: sync('issues', 'gitlab') },
      { file: 'lib/e.ts', built: { status: 'skipped', reason: 'no definition' } },
    ]);
    expect(checked.problems).toEqual([
      'b.ts: frequency: bad',
      'b.ts: name: bad',
      'c.ts: sync "issues" of "github" is already defined in a.ts',
    ]);
    expect(checked.skipped).toEqual(['lib/e.ts: no definition']);
    expect(checked.uploads.map((upload) => `${upload.integration}/${upload.name}`)).toEqual([
      'github/issues',
      'gitlab/issues',
    ]);
  });

  it('finds a dry run script by name, asking for --integration when the name is ambiguous', () => {
    const scripts = [
      { file: 'a.ts', built: sync('issues') },
      { file: 'b.ts', built: sync('issues', 'gitlab') },
      { file: 'c.ts', built: sync('labels') },
    ];
    const messages: string[] = [];
    const io = { err: (text: string) => void messages.push(text) };
    expect(findScript(scripts, { scriptName: 'labels' }, io)?.bundle).toBe('/* labels */');
    expect(
      findScript(scripts, { scriptName: 'issues', integration: 'gitlab' }, io)?.definition,
    ).toMatchObject({ integration: 'gitlab' });
    expect(findScript(scripts, { scriptName: 'issues' }, io)).toBeUndefined();
    expect(messages).toEqual([
      'Several scripts are named "issues"; choose one with --integration:',
      '  sync of github (a.ts)',
      '  sync of gitlab (b.ts)',
    ]);
    messages.length = 0;
    const withBroken = [
      ...scripts,
      { file: 'x.ts', built: { status: 'invalid', problems: ['boom'] } } as const,
    ];
    expect(findScript(withBroken, { scriptName: 'missing' }, io)).toBeUndefined();
    expect(messages).toEqual([
      'No valid script named "missing" in the folder.',
      'These files have problems:',
      '  x.ts: boom',
    ]);
  });
});
