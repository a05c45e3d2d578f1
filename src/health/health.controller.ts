import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Public } from '../auth/public.decorator';
import { DependencyUnavailableError } from '../common/errors/domain-error';
import type { FieldError } from '../common/errors/error-codes';
import { TemporalClientService } from '../temporal/temporal-client.service';

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

@ApiTags('operations')
@Public()
@Controller()
export class HealthController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly temporal: TemporalClientService,
  ) {}

  /** Liveness: the process serves HTTP. */
  @Get('health')
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: PostgreSQL and Temporal both answer; otherwise 503 naming the one that does not. */
  @Get('ready')
  async ready(): Promise<{ status: 'ready'; checks: Record<string, 'ok'> }> {
    const checks = await Promise.allSettled([
      withTimeout(this.dataSource.query('SELECT 1'), 'PostgreSQL'),
      this.temporal.checkHealth(CHECK_TIMEOUT_MS),
    ]);
    const names = ['database', 'temporal'] as const;
    const failures: FieldError[] = [];
    checks.forEach((check, index) => {
      if (check.status === 'rejected') {
        const reason: unknown = check.reason;
        failures.push({
          path: names[index] ?? 'unknown',
          message: reason instanceof Error ? reason.message : String(reason),
        });
      }
    });
    if (failures.length > 0) {
      throw new DependencyUnavailableError(
        `Not ready: ${failures.map((failure) => failure.path).join(' and ')} unreachable`,
        failures,
      );
    }
    return { status: 'ready', checks: { database: 'ok', temporal: 'ok' } };
  }
}
