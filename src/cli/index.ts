#!/usr/bin/env node
import { isServiceCommand, runCli } from './cli';
import { processIo } from './cli-io';

const argv = process.argv.slice(2);

if (isServiceCommand(argv[0])) {
  // The service entry reads the same argv and exits by itself. Loaded only here, so deploy and
  // dryrun start without NestJS.
  void import('../main.js');
} else {
  runCli(argv, process.env, process.cwd(), processIo()).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(
        `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
