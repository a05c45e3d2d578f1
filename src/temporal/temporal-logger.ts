import { Logger as NestLogger } from '@nestjs/common';
import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';

/** Sends the Temporal SDK's log lines (worker, workflows, activities) to the process's JSON log. */
export class TemporalLogger implements Logger {
  private readonly nest = new NestLogger('Temporal');

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    const fields = { ...meta };
    switch (level) {
      case 'TRACE':
        this.nest.verbose(fields, message);
        return;
      case 'DEBUG':
        this.nest.debug(fields, message);
        return;
      case 'INFO':
        this.nest.log(fields, message);
        return;
      case 'WARN':
        this.nest.warn(fields, message);
        return;
      case 'ERROR':
        this.nest.error(fields, message);
        return;
    }
  }
  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

let installed = false;

/**
 * Installs the SDK runtime once per process, before the first worker: logs go to our logger and
 * the process's own signal handling (drain, then exit 0) stays in charge of shutdown.
 */
export function installTemporalRuntime(): void {
  if (installed) return;
  Runtime.install({ logger: new TemporalLogger(), shutdownSignals: [] });
  installed = true;
}
