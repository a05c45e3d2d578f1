import type { ScriptDefinitionJson, ScriptKind } from '../scripts/script.types';
import type { DeployOptions } from './arguments';
import type { CliIo } from './cli-io';
import { buildFolder, type FolderScript, isFolder } from './script-files';
import { postJson, ServiceError } from './service-client';

interface ScriptRef {
  readonly integration: string;
  readonly kind: ScriptKind;
  readonly name: string;
  readonly version: number;
}

interface DeployResult {
  readonly created: ScriptRef[];
  readonly updated: ScriptRef[];
  readonly unchanged: ScriptRef[];
  readonly removed: ScriptRef[];
}

interface Upload {
  readonly kind: ScriptKind;
  readonly name: string;
  readonly integration: string;
  readonly definition: ScriptDefinitionJson;
  readonly bundle: string;
}

/** `junction deploy`: bundles and checks every script of the folder, then uploads them all. */
export async function deployCommand(options: DeployOptions, io: CliIo): Promise<number> {
  if (!(await isFolder(options.dir))) {
    io.err(`No folder ${options.dir}; give the scripts folder with --dir <folder>`);
    return 1;
  }
  const scripts = await buildFolder(options.dir, (index, total, file) =>
    io.err(`Bundling ${index}/${total} ${file}`),
  );
  const checked = checkScripts(scripts);
  for (const skipped of checked.skipped) io.err(`Skipped ${skipped}`);
  if (checked.problems.length > 0) {
    io.err('');
    io.err(`Invalid scripts; nothing was uploaded:`);
    for (const problem of checked.problems) io.err(`  ${problem}`);
    return 1;
  }
  if (checked.uploads.length === 0) io.err(`No script definitions in ${options.dir}`);

  io.err(`Uploading ${checked.uploads.length} script(s) to ${options.target.url}`);
  try {
    const result = await upload(options, checked.uploads, io);
    if (!result) return 1;
    printResult(result, io);
    return 0;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    io.err(`Deploy failed: ${error.describe()}`);
    return 1;
  }
}

async function upload(
  options: DeployOptions,
  scripts: readonly Upload[],
  io: CliIo,
): Promise<DeployResult | undefined> {
  try {
    return (await postJson(options.target, '/scripts/deploy', { scripts })) as DeployResult;
  } catch (error) {
    if (!(error instanceof ServiceError) || error.code !== 'confirmation_required') throw error;
    const removed = (error.payload as { removed?: ScriptRef[] } | undefined)?.removed ?? [];
    io.err('This deploy removes scripts that are no longer in the folder:');
    for (const script of removed) io.err(`  ${formatRef(script)}`);
    if (!options.yes) {
      if (!io.interactive) {
        io.err('Re-run with --yes to confirm the removal; nothing was changed.');
        return undefined;
      }
      if (!(await io.confirm('Remove them? (y/N) '))) {
        io.err('Nothing was changed.');
        return undefined;
      }
    }
    const body = { scripts, allow_removals: true };
    return (await postJson(options.target, '/scripts/deploy', body)) as DeployResult;
  }
}

/** Per-file problems, skipped helper modules, and names used twice across files. */
export function checkScripts(scripts: readonly FolderScript[]): {
  uploads: Upload[];
  problems: string[];
  skipped: string[];
} {
  const uploads: Upload[] = [];
  const problems: string[] = [];
  const skipped: string[] = [];
  const files = new Map<string, string>();
  for (const { file, built } of scripts) {
    if (built.status === 'skipped') {
      skipped.push(`${file}: ${built.reason}`);
      continue;
    }
    if (built.status === 'invalid') {
      problems.push(...built.problems.map((problem) => `${file}: ${problem}`));
      continue;
    }
    const { definition, bundle } = built;
    const key = `${definition.integration}\u0000${definition.kind}\u0000${definition.name}`;
    const earlier = files.get(key);
    if (earlier !== undefined) {
      problems.push(
        `${file}: ${definition.kind} "${definition.name}" of "${definition.integration}" is already defined in ${earlier}`,
      );
      continue;
    }
    files.set(key, file);
    const { kind, name, integration } = definition;
    uploads.push({ kind, name, integration, definition, bundle });
  }
  return { uploads, problems, skipped };
}

function formatRef(ref: ScriptRef): string {
  return `${ref.kind.padEnd(6)} ${ref.integration}/${ref.name} v${ref.version}`;
}

function printResult(result: DeployResult, io: CliIo): void {
  for (const label of ['created', 'updated', 'unchanged', 'removed'] as const) {
    for (const ref of result[label]) io.err(`  ${label.padEnd(9)} ${formatRef(ref)}`);
  }
  io.err(
    `Deployed: ${result.created.length} created, ${result.updated.length} updated, ` +
      `${result.unchanged.length} unchanged, ${result.removed.length} removed`,
  );
}
