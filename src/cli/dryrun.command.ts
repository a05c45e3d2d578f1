import type { ScriptDefinitionJson } from '../scripts/script.types';
import { type DryrunOptions, UsageError } from './arguments';
import type { CliIo } from './cli-io';
import { formatDryrun } from './dryrun-output';
import { buildFolder, type FolderScript, isFolder } from './script-files';
import { postJson, ServiceError } from './service-client';

interface Found {
  readonly definition: ScriptDefinitionJson;
  readonly bundle: string;
}

/** `junction dryrun`: runs one script of the folder once against a connection, saving nothing. */
export async function dryrunCommand(options: DryrunOptions, io: CliIo): Promise<number> {
  if (!(await isFolder(options.dir))) {
    io.err(`No folder ${options.dir}; give the scripts folder with --dir <folder>`);
    return 1;
  }
  const scripts = await buildFolder(options.dir, (index, total, file) =>
    io.err(`Bundling ${index}/${total} ${file}`),
  );
  const found = findScript(scripts, options, io);
  if (!found) return 1;
  const { definition, bundle } = found;
  checkOptionsFit(definition, options);
  try {
    const response = await postJson(options.target, '/scripts/dryrun', {
      kind: definition.kind,
      name: definition.name,
      provider_config_key: definition.integration,
      connection_id: options.connectionId,
      definition,
      bundle,
      input: options.input,
      checkpoint: options.checkpoint,
      last_sync_date: options.lastSyncDate,
    });
    if (options.json) {
      io.out(JSON.stringify(response, null, 2));
    } else {
      const subject = {
        kind: definition.kind,
        name: definition.name,
        integration: definition.integration,
        connectionId: options.connectionId,
      };
      io.out(formatDryrun(subject, response));
    }
    return 0;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    io.err(`Dry run failed: ${error.describe()}`);
    if (error.payload !== undefined) io.err(JSON.stringify(error.payload, null, 2));
    return 1;
  }
}

/** The script with the name (and integration, when given); reports why when there is none. */
export function findScript(
  scripts: readonly FolderScript[],
  options: Pick<DryrunOptions, 'scriptName' | 'integration'>,
  io: Pick<CliIo, 'err'>,
): Found | undefined {
  const matches: Array<Found & { file: string }> = [];
  const unreadable: string[] = [];
  for (const { file, built } of scripts) {
    if (built.status === 'invalid') {
      unreadable.push(...built.problems.map((problem) => `${file}: ${problem}`));
      continue;
    }
    if (built.status !== 'ok') continue;
    const { definition } = built;
    if (definition.name !== options.scriptName) continue;
    if (options.integration !== undefined && definition.integration !== options.integration)
      continue;
    matches.push({ ...built, file });
  }
  const [only, ...others] = matches;
  if (only && others.length === 0) return only;
  if (only) {
    io.err(`Several scripts are named "${options.scriptName}"; choose one with --integration:`);
    for (const match of matches) {
      io.err(`  ${match.definition.kind} of ${match.definition.integration} (${match.file})`);
    }
    return undefined;
  }
  const where = options.integration === undefined ? '' : ` for "${options.integration}"`;
  io.err(`No valid script named "${options.scriptName}"${where} in the folder.`);
  if (unreadable.length > 0) {
    io.err('These files have problems:');
    for (const problem of unreadable) io.err(`  ${problem}`);
  }
  return undefined;
}

function checkOptionsFit(definition: ScriptDefinitionJson, options: DryrunOptions): void {
  if (definition.kind === 'sync' && options.input !== undefined) {
    throw new UsageError(`"${definition.name}" is a sync: --input is for actions`);
  }
  if (
    definition.kind === 'action' &&
    (options.checkpoint !== undefined || options.lastSyncDate !== undefined)
  ) {
    throw new UsageError(
      `"${definition.name}" is an action: --checkpoint and --last-sync-date are for syncs`,
    );
  }
}
