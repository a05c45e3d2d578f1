import { z } from 'zod';
import { FREQUENCY_FORMS, parseFrequency } from './frequency';
import type { ScriptDefinitionJson, ScriptKind } from './script.types';

/** Script and model names: letters, digits, `-` and `_`. */
export const SCRIPT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
export const SCRIPT_NAME_RULE =
  'must be 1-100 letters, digits, "-" or "_", starting with a letter or digit';

/** The integration ID rule of `POST /config`. */
export const INTEGRATION_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
export const INTEGRATION_KEY_RULE =
  'must be 1-100 letters, digits, ".", "_" or "-", starting with a letter or digit';

export const SCRIPT_KINDS = ['sync', 'action'] as const satisfies readonly ScriptKind[];

/** Largest bundle one script may have. Bundles carry zod and the SDK, about 0.8 MB. */
export const MAX_BUNDLE_BYTES = 5 * 1024 * 1024;

const jsonSchema = z.record(z.string(), z.unknown());
const description = z.string().max(2000).optional();
const timeoutMs = z
  .int()
  .positive()
  .max(366 * 86_400_000)
  .optional();

const frequency = z
  .string()
  .max(100)
  .refine((text) => parseFrequency(text) !== null, { message: `must be ${FREQUENCY_FORMS}` });

/** A model's JSON Schema must describe an object with a required string or number `id`. */
const modelSchema = jsonSchema.superRefine((schema, context) => {
  const properties = schema.properties as Record<string, { type?: unknown }> | undefined;
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  const idType = properties?.id?.type;
  if (schema.type !== 'object' || typeof properties !== 'object') {
    context.addIssue({ code: 'custom', message: 'must be an object schema' });
  } else if (!properties.id || !required.includes('id')) {
    context.addIssue({ code: 'custom', message: 'must have a required "id" property' });
  } else if (
    idType !== undefined &&
    !(typeof idType === 'string' && ['string', 'number', 'integer'].includes(idType))
  ) {
    context.addIssue({
      code: 'custom',
      path: ['properties', 'id'],
      message: 'must be a string or a number',
    });
  }
});

const syncDefinition = z
  .strictObject({
    kind: z.literal('sync'),
    name: z.string().regex(SCRIPT_NAME, SCRIPT_NAME_RULE),
    integration: z.string().regex(INTEGRATION_KEY, INTEGRATION_KEY_RULE),
    description,
    frequency,
    frequency_ms: z.int().positive(),
    auto_start: z.boolean(),
    type: z.enum(['incremental', 'full']),
    track_deletes: z.boolean(),
    models: z
      .record(z.string().regex(SCRIPT_NAME, `model names ${SCRIPT_NAME_RULE}`), modelSchema)
      .refine((models) => Object.keys(models).length > 0, 'must declare at least one model'),
    timeout_ms: timeoutMs,
  })
  .refine((definition) => !definition.track_deletes || definition.type === 'full', {
    path: ['track_deletes'],
    message: 'applies to full syncs only (type "full")',
  })
  .transform((definition) => ({
    ...definition,
    // The service's own reading of the text wins over what the client computed.
    frequency_ms: parseFrequency(definition.frequency) ?? definition.frequency_ms,
  }));

const actionDefinition = z.strictObject({
  kind: z.literal('action'),
  name: z.string().regex(SCRIPT_NAME, SCRIPT_NAME_RULE),
  integration: z.string().regex(INTEGRATION_KEY, INTEGRATION_KEY_RULE),
  description,
  input_schema: jsonSchema,
  output_schema: jsonSchema.optional(),
  timeout_ms: timeoutMs,
  retries: z.int().min(0).max(100),
});

export interface DefinitionProblem {
  /** Dotted path inside the definition, empty for the definition itself. */
  readonly path: string;
  readonly message: string;
}

/** Validates a definition of the given kind; every problem is listed. */
export function parseDefinitionJson(
  kind: ScriptKind,
  input: unknown,
): { definition: ScriptDefinitionJson; problems: [] } | { problems: DefinitionProblem[] } {
  const parsed =
    kind === 'sync' ? syncDefinition.safeParse(input) : actionDefinition.safeParse(input);
  if (parsed.success) return { definition: parsed.data, problems: [] };
  return {
    problems: parsed.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.'),
      message: issue.message,
    })),
  };
}
