import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { log } from './common';

/** The absolute path of `name` on PATH or in the sbin folders; undefined when absent. */
export function executableOnPath(name: string): string | undefined {
  const folders = [
    ...(process.env.PATH ?? '').split(delimiter),
    '/usr/sbin',
    '/usr/local/sbin',
    '/sbin',
  ];
  for (const folder of folders.filter(Boolean)) {
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/**
 * A binary from a Debian package: found on PATH, else installed with `apt-get install -y <pkg>`
 * when the bench runs as root. `path` is undefined (and `note` says why) when neither works.
 */
export function debianTool(binary: string, pkg: string): { path?: string; note: string } {
  const found = executableOnPath(binary);
  if (found) return { path: found, note: `${binary}: ${found}` };
  if (process.getuid?.() !== 0) {
    return {
      note: `${binary} is not installed and the bench is not running as root (install it with \`apt-get install -y ${pkg}\`)`,
    };
  }
  const install = (): boolean => {
    log(`${binary} is not installed: apt-get install -y ${pkg}`);
    const result = spawnSync('apt-get', ['install', '-y', pkg], {
      stdio: ['ignore', 2, 2],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 600_000,
    });
    return result.status === 0;
  };
  if (!install()) {
    log('apt-get install failed: apt-get update, then once more');
    spawnSync('apt-get', ['update'], { stdio: ['ignore', 2, 2], timeout: 600_000 });
    install();
  }
  const installed = executableOnPath(binary);
  if (!installed) return { note: `apt-get install -y ${pkg} failed` };
  return { path: installed, note: `${binary}: ${installed}, installed by this run` };
}
