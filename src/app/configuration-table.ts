import type { z } from 'zod';
import { CONFIG_VARIABLES } from '../config/config.schema';

function defaultOf(schema: z.ZodType): string {
  const result = schema.safeParse(undefined);
  const value: unknown = result.success ? result.data : undefined;
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? `\`${value}\``
    : '';
}

/** The README's configuration table, generated from the schema so the two cannot drift. */
export function configurationTable(): string {
  const rows = Object.entries(CONFIG_VARIABLES).map(([name, variable]) => {
    const doc: { meaning: string; secret: boolean; defaultText?: string } = variable.doc;
    const fallback = doc.defaultText ?? defaultOf(variable.schema);
    return `| \`${name}\` | ${fallback || '(none)'} | ${doc.meaning} | ${doc.secret ? 'yes' : 'no'} |`;
  });
  return ['| Variable | Default | Meaning | Secret |', '|---|---|---|---|', ...rows].join('\n');
}

export function printConfigurationTable(): void {
  process.stdout.write(`${configurationTable()}\n`);
}
