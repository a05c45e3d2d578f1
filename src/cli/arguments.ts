import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** A command line that cannot be run as given (exit code 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const DEFAULT_URL = 'http://localhost:3003';
export const DEFAULT_DIR = 'integrations';

/** Where the service is and the key selecting the environment. */
export interface ServiceTarget {
  readonly url: string;
  readonly key: string;
}

export interface DeployOptions {
  readonly dir: string;
  readonly yes: boolean;
  readonly target: ServiceTarget;
}

export interface DryrunOptions {
  readonly scriptName: string;
  readonly connectionId: string;
  readonly integration?: string;
  readonly input?: unknown;
  readonly checkpoint?: unknown;
  readonly lastSyncDate?: string;
  readonly dir: string;
  readonly json: boolean;
  readonly target: ServiceTarget;
}

/** The variables the CLI reads; passed in so parsing stays a pure function. */
export interface CliEnvironment {
  readonly JUNCTION_URL?: string;
  readonly JUNCTION_SECRET_KEY?: string;
}

const TARGET_OPTIONS = {
  dir: { type: 'string' },
  url: { type: 'string' },
  key: { type: 'string' },
} as const;

export function parseDeployArguments(
  args: readonly string[],
  env: CliEnvironment,
  cwd: string,
): DeployOptions {
  const { values, positionals } = parse(args, {
    ...TARGET_OPTIONS,
    yes: { type: 'boolean', short: 'y' },
  });
  if (positionals.length > 0) {
    throw new UsageError(`deploy takes no arguments (got "${positionals.join(' ')}")`);
  }
  return {
    dir: resolve(cwd, values.dir ?? DEFAULT_DIR),
    yes: values.yes === true,
    target: targetOf(values, env),
  };
}

export function parseDryrunArguments(
  args: readonly string[],
  env: CliEnvironment,
  cwd: string,
): DryrunOptions {
  const { values, positionals } = parse(args, {
    ...TARGET_OPTIONS,
    integration: { type: 'string' },
    input: { type: 'string' },
    checkpoint: { type: 'string' },
    'last-sync-date': { type: 'string' },
    json: { type: 'boolean' },
  });
  const [scriptName, connectionId, ...extra] = positionals;
  if (scriptName === undefined || connectionId === undefined || extra.length > 0) {
    throw new UsageError('dryrun takes a script name and a connection ID');
  }
  const lastSyncDate = values['last-sync-date'];
  if (lastSyncDate !== undefined && Number.isNaN(Date.parse(lastSyncDate))) {
    throw new UsageError(
      `--last-sync-date must be an ISO 8601 date, e.g. 2024-05-01T00:00:00Z (got "${lastSyncDate}")`,
    );
  }
  return {
    scriptName,
    connectionId,
    integration: values.integration,
    input: jsonOption('--input', values.input),
    checkpoint: jsonOption('--checkpoint', values.checkpoint),
    lastSyncDate: lastSyncDate === undefined ? undefined : new Date(lastSyncDate).toISOString(),
    dir: resolve(cwd, values.dir ?? DEFAULT_DIR),
    json: values.json === true,
    target: targetOf(values, env),
  };
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

function parse<T extends OptionSpec>(args: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function targetOf(
  values: { url?: string | boolean; key?: string | boolean },
  env: CliEnvironment,
): ServiceTarget {
  const url = stringValue(values.url) ?? env.JUNCTION_URL ?? DEFAULT_URL;
  try {
    new URL(url);
  } catch {
    throw new UsageError(`The service URL "${url}" is not a URL`);
  }
  const key = stringValue(values.key) ?? env.JUNCTION_SECRET_KEY;
  if (!key) {
    throw new UsageError(
      "A secret key is needed: --key <key> or JUNCTION_SECRET_KEY (the environment's secret key)",
    );
  }
  return { url: url.replace(/\/+$/, ''), key };
}

function stringValue(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function jsonOption(name: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(
      `${name} must be JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
