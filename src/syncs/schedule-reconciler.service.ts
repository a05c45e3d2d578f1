import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/app-config';
import { SchedulesService } from './schedules.service';

/**
 * Keeps Temporal's schedules equal to what the database says, in worker processes: once at
 * start-up, then every SCHEDULE_RECONCILE_INTERVAL_MS. One process at a time does the work
 * (an advisory lock); a failed pass is logged and retried at the next tick.
 */
@Injectable()
export class ScheduleReconcilerService implements OnApplicationShutdown {
  private readonly logger = new Logger('ScheduleReconciler');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly schedules: SchedulesService,
  ) {}

  start(): void {
    this.tick();
    const every = this.config.scripts.scheduleReconcileIntervalMs;
    if (every > 0) {
      this.timer = setInterval(() => this.tick(), every);
      this.timer.unref();
    }
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.schedules
      .reconcileEverything()
      .then((report) => {
        if (report && report.created + report.updated + report.deleted > 0) {
          this.logger.log(report, 'Schedules repaired');
        }
      })
      .catch((error: unknown) => {
        this.logger.warn(
          { err: error },
          'Schedule reconciliation failed; retrying at the next tick',
        );
      })
      .finally(() => {
        this.running = undefined;
      });
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
