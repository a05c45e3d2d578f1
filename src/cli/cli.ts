import {
  type CliEnvironment,
  DEFAULT_DIR,
  DEFAULT_URL,
  parseDeployArguments,
  parseDryrunArguments,
  UsageError,
} from './arguments';
import type { CliIo } from './cli-io';
import { deployCommand } from './deploy.command';
import { dryrunCommand } from './dryrun.command';

/** First arguments that start the service or run an operator command (src/main.ts). */
export const SERVICE_COMMANDS = ['local', 'api', 'worker', 'keys', 'config-table'] as const;

export const USAGE = `Usage: junction <command>

Scripts:
  deploy [--dir <folder>] [--yes] [--url <url>] [--key <key>]
        bundle, check and upload every sync and action script under the folder
        (default ./${DEFAULT_DIR}); --yes confirms removing scripts no longer there
  dryrun <script-name> <connection-id> [--integration <key>] [--input <json>]
        [--checkpoint <json>] [--last-sync-date <iso>] [--dir <folder>] [--json]
        run one script once against a connection without saving anything
  The service is JUNCTION_URL (default ${DEFAULT_URL}) or --url; the environment's
  secret key is JUNCTION_SECRET_KEY or --key.

Service:
  local                   API and worker in one process; embedded PostgreSQL and Temporal unless configured
  api                     HTTP API only (needs DATABASE_URL and TEMPORAL_ADDRESS)
  worker                  Temporal worker only, no HTTP (needs DATABASE_URL and TEMPORAL_ADDRESS)
  keys rotate <dev|prod>  replace an environment's secret key and print the new one
  keys reencrypt          re-encrypt every stored secret under the first key of ENCRYPTION_KEYS
  config-table            print the configuration variables as a Markdown table

  help                    this text
`;

export function isServiceCommand(command: string | undefined): boolean {
  return (SERVICE_COMMANDS as readonly (string | undefined)[]).includes(command);
}

/** Runs a scripts command (not a service command); resolves with the exit code. */
export async function runCli(
  argv: readonly string[],
  env: CliEnvironment,
  cwd: string,
  io: CliIo,
): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'deploy':
        return await deployCommand(parseDeployArguments(args, env, cwd), io);
      case 'dryrun':
        return await dryrunCommand(parseDryrunArguments(args, env, cwd), io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.err(USAGE);
        return 0;
      default:
        throw new UsageError(`Unknown command "${command}"`);
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n`);
    io.err(USAGE);
    return 2;
  }
}
