import 'reflect-metadata';
import { ConfigurationError, loadConfig } from './config/app-config';
import { RUN_MODES, type RunMode } from './config/config.schema';
import { printConfigurationTable } from './app/configuration-table';
import { reencryptSecrets, rotateSecretKey } from './app/operator-commands';
import { startService } from './app/service';
import { printStartupBanner } from './app/startup-banner';

const USAGE = `Usage: junction <command>

Commands:
  local                 API and worker in one process; embedded PostgreSQL and Temporal unless configured
  api                   HTTP API only (needs DATABASE_URL and TEMPORAL_ADDRESS)
  worker                Temporal worker only, no HTTP (needs DATABASE_URL and TEMPORAL_ADDRESS)
  keys rotate <dev|prod>  replace an environment's secret key and print the new one
  keys reencrypt        re-encrypt every stored secret under the first key of ENCRYPTION_KEYS
  config-table          print the configuration variables as a Markdown table
`;

async function run(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'config-table') {
    printConfigurationTable();
    return 0;
  }
  if (command === 'keys' && rest[0] === 'reencrypt') {
    return reencryptSecrets(loadConfig('local'));
  }
  if (command === 'keys') {
    const [action, environment] = rest;
    if (action !== 'rotate' || (environment !== 'dev' && environment !== 'prod')) {
      process.stderr.write(USAGE);
      return 2;
    }
    return rotateSecretKey(loadConfig('local'), environment);
  }
  if (!RUN_MODES.includes(command as RunMode)) {
    process.stderr.write(USAGE);
    return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
  const service = await startService(loadConfig(command as RunMode));
  printStartupBanner(command as RunMode, service);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
  await service.stop();
  return 0;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigurationError) {
      process.stderr.write(`${error.message}\nSee the configuration table in README.md.\n`);
    } else {
      process.stderr.write(
        `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    }
    process.exit(1);
  },
);
