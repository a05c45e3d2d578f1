import type { RunMode } from '../config/config.schema';
import type { RunningService } from './service';

/**
 * What an operator needs after start: where things are, and how to authenticate. A generated
 * key is shown here the only time it exists in clear (local mode also keeps the dev key in a file).
 */
export function printStartupBanner(mode: RunMode, service: RunningService): void {
  const lines = [`Junction ${mode} started`];
  if (service.apiUrl) {
    lines.push(`  API:         ${service.apiUrl}`, `  API docs:    ${service.apiUrl}/docs`);
  }
  if (service.temporalUiUrl) lines.push(`  Temporal UI: ${service.temporalUiUrl}`);
  lines.push(`  Metrics:     ${service.metricsUrl}`);
  for (const created of service.createdKeys) {
    if (created.generated) {
      lines.push(`  New ${created.environment} secret key (shown once): ${created.secretKey}`);
    }
  }
  if (service.devKeyPath) {
    lines.push(`  Dev secret key: cat ${service.devKeyPath}`);
  } else if (mode !== 'worker') {
    lines.push('  Secret keys: `junction keys rotate dev|prod` prints a new one');
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
