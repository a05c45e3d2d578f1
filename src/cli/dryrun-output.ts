import { inspect } from 'node:util';

/** Records shown per model before the rest is summed up (`--json` prints them all). */
export const RECORDS_SHOWN = 20;

export interface DryrunLog {
  readonly level: string;
  readonly message: string;
  readonly fields?: Record<string, unknown>;
  readonly at: string;
}

export interface DryrunModelResult {
  readonly records: readonly unknown[];
  readonly added: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly deleted: number;
}

export interface SyncDryrunResponse {
  readonly models: Record<string, DryrunModelResult>;
  readonly checkpoint: unknown;
  readonly logs: readonly DryrunLog[];
  readonly duration_ms: number;
}

export interface ActionDryrunResponse {
  readonly output: unknown;
  readonly logs: readonly DryrunLog[];
  readonly duration_ms: number;
}

export interface DryrunSubject {
  readonly kind: 'sync' | 'action';
  readonly name: string;
  readonly integration: string;
  readonly connectionId: string;
}

/** A readable report of a dry run: per model the counts and records, then the logs. */
export function formatDryrun(subject: DryrunSubject, response: unknown): string {
  const lines: string[] = [];
  const body = (response ?? {}) as Partial<SyncDryrunResponse & ActionDryrunResponse>;
  const duration = typeof body.duration_ms === 'number' ? ` in ${body.duration_ms} ms` : '';
  lines.push(
    `Dry run of ${subject.kind} "${subject.name}" (${subject.integration}) on connection "${subject.connectionId}"${duration}; nothing was saved.`,
  );
  if (subject.kind === 'sync') lines.push(...syncLines(body));
  else lines.push('', 'Output:', indent(pretty(body.output), 2));
  lines.push(...logLines(body.logs ?? []));
  return lines.join('\n');
}

function syncLines(body: Partial<SyncDryrunResponse>): string[] {
  const lines: string[] = [];
  const models = Object.entries(body.models ?? {});
  if (models.length === 0) lines.push('', 'No records.');
  for (const [model, result] of models) {
    const records = result.records ?? [];
    lines.push(
      '',
      `${model}: ${result.added} added, ${result.updated} updated, ${result.unchanged} unchanged, ${result.deleted} deleted`,
    );
    for (const record of records.slice(0, RECORDS_SHOWN)) lines.push(indent(pretty(record), 2));
    if (records.length > RECORDS_SHOWN) {
      lines.push(`  … ${records.length - RECORDS_SHOWN} more record(s); --json prints them all`);
    }
  }
  lines.push('', `Checkpoint: ${body.checkpoint === undefined ? 'none' : pretty(body.checkpoint)}`);
  return lines;
}

function logLines(logs: readonly DryrunLog[]): string[] {
  if (logs.length === 0) return ['', 'Logs: none'];
  return [
    '',
    'Logs:',
    ...logs.map((log) => {
      const fields =
        log.fields && Object.keys(log.fields).length > 0 ? ` ${JSON.stringify(log.fields)}` : '';
      return `  ${log.at} ${log.level.toUpperCase().padEnd(5)} ${log.message}${fields}`;
    }),
  ];
}

function pretty(value: unknown): string {
  if (value === undefined) return 'undefined';
  return JSON.stringify(value, null, 2) ?? inspect(value);
}

function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');
}
