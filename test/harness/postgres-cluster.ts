import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports';

export interface PostgresCluster {
  /** URL of the `postgres` maintenance database; test databases are created beside it. */
  readonly url: string;
  stop(): void;
}

function findBinDir(): string {
  const given = process.env.PG_BIN_DIR;
  if (given) return given;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions
    .map((version) => join(root, version, 'bin'))
    .find((dir) => existsSync(join(dir, 'initdb')));
  if (!found)
    throw new Error('No PostgreSQL server binaries found; set DATABASE_URL or PG_BIN_DIR');
  return found;
}

/** initdb and pg_ctl refuse to run as root: run them as the postgres user then. */
function runAsOwner(command: string, args: readonly string[]): void {
  const asRoot = userInfo().uid === 0;
  const result = asRoot
    ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' })
    : spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${command} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
}

/** A throwaway PostgreSQL cluster on loopback, tuned for tests (no fsync). */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const binDir = findBinDir();
  const directory = mkdtempSync(join(tmpdir(), 'junction-test-pg-'));
  const dataDir = join(directory, 'data');
  if (userInfo().uid === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(directory, uid, gid);
  }
  chmodSync(directory, 0o700);
  const port = await freePort();
  runAsOwner(join(binDir, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  runAsOwner(join(binDir, 'pg_ctl'), [
    '-D',
    dataDir,
    '-l',
    join(directory, 'server.log'),
    '-o',
    `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`,
    '-w',
    'start',
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        runAsOwner(join(binDir, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}
