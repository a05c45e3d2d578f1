import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { generateEncryptionKey } from '../crypto/secret-box';
import { join } from 'node:path';

/** The dev key of the local mode, readable by its owner only. */
export function devKeyFile(dataDir: string): string {
  return join(dataDir, 'dev-secret-key');
}

export async function writeDevKeyFile(dataDir: string, secretKey: string): Promise<string> {
  await mkdir(dataDir, { recursive: true });
  const path = devKeyFile(dataDir);
  await writeFile(path, `${secretKey}\n`, { mode: 0o600 });
  return path;
}

/**
 * The embedded database serves one process at a time: a pid file keeps a second local process
 * (or an operator command) from opening it while the service runs.
 */
export async function claimDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, 'junction.pid');
  const existing = await readFile(path, 'utf8').catch(() => undefined);
  const pid = existing ? Number.parseInt(existing, 10) : NaN;
  if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) {
    throw new Error(
      `${dataDir} is in use by process ${pid}; stop it first (the embedded database serves one process)`,
    );
  }
  await writeFile(path, String(process.pid));
  return () => rm(path, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The local mode's encryption key, generated on first start and kept beside its data. */
export async function localEncryptionKeys(dataDir: string): Promise<string> {
  const path = join(dataDir, 'encryption-keys');
  const existing = await readFile(path, 'utf8').catch(() => undefined);
  if (existing?.trim()) return existing.trim();
  await mkdir(dataDir, { recursive: true });
  const keys = generateEncryptionKey('local1');
  await writeFile(path, `${keys}\n`, { mode: 0o600 });
  return keys;
}
