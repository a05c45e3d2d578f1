import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { buildScript, type BuiltScript } from './bundle';

/** Every `*.ts` file under a folder, recursively, but tests, declarations and dependencies. */
export async function findScriptFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  const visit = async (folder: string): Promise<void> => {
    const entries = await readdir(folder, { withFileTypes: true });
    for (const entry of entries) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await visit(path);
      else if (isScriptFile(entry.name)) files.push(path);
    }
  };
  await visit(dir);
  return files.sort();
}

function isScriptFile(name: string): boolean {
  return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts');
}

/** Whether the folder exists (a missing one is a mistake worth naming, not an empty deploy). */
export async function isFolder(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch {
    return false;
  }
}

export interface FolderScript {
  /** Relative to the folder, for messages. */
  readonly file: string;
  readonly built: BuiltScript;
}

/** Bundles every script file of a folder one after the other, reporting progress. */
export async function buildFolder(
  dir: string,
  progress: (index: number, total: number, file: string) => void,
): Promise<FolderScript[]> {
  const files = await findScriptFiles(dir);
  const results: FolderScript[] = [];
  for (const [index, path] of files.entries()) {
    const file = relative(dir, path);
    progress(index + 1, files.length, file);
    results.push({ file, built: await buildScript(path) });
  }
  return results;
}
