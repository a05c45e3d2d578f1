import { parseDefinitionJson } from '../scripts/definition-schema';
import { FREQUENCY_FORMS, parseFrequency } from '../scripts/frequency';
import type { JsonSchema, ScriptDefinitionJson, ScriptKind } from '../scripts/script.types';

/** The part of zod 4 used here; it is the bundle's own copy, loaded in the sandbox. */
export interface ZodModule {
  toJSONSchema(schema: unknown, params?: Record<string, unknown>): unknown;
}

/** What createSync/createAction return, before any checking. */
type RawDefinition = Record<string, unknown> & { kind: ScriptKind };

/** Whether a default export was made by createSync or createAction. */
export function isScriptDefinition(value: unknown): value is RawDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const { kind } = value as Record<string, unknown>;
  return kind === 'sync' || kind === 'action';
}

/** Definition JSON fields by the authoring API's names, for messages. */
const AUTHORING_NAMES: Readonly<Record<string, string>> = {
  auto_start: 'autoStart',
  track_deletes: 'trackDeletes',
  input_schema: 'input',
  output_schema: 'output',
  timeout_ms: 'timeout',
};

/**
 * Turns a createSync/createAction result into the definition JSON the service stores (zod
 * schemas as JSON Schema), listing every problem with the field as the author wrote it.
 */
export function describeDefinition(
  raw: RawDefinition,
  zod: ZodModule | undefined,
): { definition?: ScriptDefinitionJson; problems: string[] } {
  const problems: string[] = [];
  if (typeof raw.exec !== 'function') problems.push('exec: must be a function');
  const schemaOf = (path: string, schema: unknown, io: 'input' | 'output'): JsonSchema => {
    const converted = toJsonSchema(schema, zod, io);
    if (typeof converted === 'string') {
      problems.push(`${path}: ${converted}`);
      return {};
    }
    return converted;
  };
  const timeout = durationOf(raw.timeout, 'timeout', problems);
  const json =
    raw.kind === 'sync'
      ? syncJson(raw, timeout, problems, schemaOf)
      : actionJson(raw, timeout, problems, schemaOf);
  const parsed = parseDefinitionJson(raw.kind, json);
  for (const problem of parsed.problems) {
    // The frequency text is checked; the milliseconds derived from it say nothing more.
    if (problem.path === 'frequency_ms') continue;
    const [field = '', ...rest] = problem.path.split('.');
    const path = [AUTHORING_NAMES[field] ?? field, ...rest].filter(Boolean).join('.');
    problems.push(path ? `${path}: ${problem.message}` : problem.message);
  }
  if (problems.length > 0 || !('definition' in parsed)) return { problems };
  return { definition: parsed.definition, problems };
}

type SchemaOf = (path: string, schema: unknown, io: 'input' | 'output') => JsonSchema;

function syncJson(
  raw: RawDefinition,
  timeoutMs: number | undefined,
  problems: string[],
  schemaOf: SchemaOf,
): Record<string, unknown> {
  const frequency = raw.frequency;
  const models: Record<string, JsonSchema> = {};
  if (typeof raw.models === 'object' && raw.models !== null) {
    for (const [name, schema] of Object.entries(raw.models as Record<string, unknown>)) {
      if (zodType(schema) !== 'object') {
        problems.push(
          `models.${name}: must be a zod object schema, e.g. z.object({ id: z.string() })`,
        );
        continue;
      }
      models[name] = schemaOf(`models.${name}`, schema, 'output');
    }
  } else {
    problems.push('models: must be an object of zod schemas, e.g. { Issue: z.object({ ... }) }');
  }
  return {
    kind: 'sync',
    name: raw.name,
    integration: raw.integration,
    description: raw.description,
    frequency,
    frequency_ms: typeof frequency === 'string' ? (parseFrequency(frequency) ?? 0) : 0,
    auto_start: raw.autoStart ?? true,
    type: raw.type,
    track_deletes: raw.trackDeletes ?? false,
    models,
    timeout_ms: timeoutMs,
  };
}

function actionJson(
  raw: RawDefinition,
  timeoutMs: number | undefined,
  problems: string[],
  schemaOf: SchemaOf,
): Record<string, unknown> {
  let inputSchema: JsonSchema | undefined;
  if (raw.input === undefined) {
    problems.push('input: an action needs an input schema, e.g. z.object({ ... })');
  } else if (zodType(raw.input) === undefined) {
    problems.push('input: must be a zod schema');
  } else {
    inputSchema = schemaOf('input', raw.input, 'input');
  }
  let outputSchema: JsonSchema | undefined;
  if (raw.output !== undefined) {
    if (zodType(raw.output) === undefined) problems.push('output: must be a zod schema');
    else outputSchema = schemaOf('output', raw.output, 'output');
  }
  return {
    kind: 'action',
    name: raw.name,
    integration: raw.integration,
    description: raw.description,
    input_schema: inputSchema ?? {},
    output_schema: outputSchema,
    timeout_ms: timeoutMs,
    retries: raw.retries ?? 0,
  };
}

/** The zod type name (`object`, `string`, ...) of a zod 4 schema, or undefined for anything else. */
function zodType(schema: unknown): string | undefined {
  const internals = (schema as { _zod?: { def?: { type?: unknown } } } | null | undefined)?._zod;
  const type = internals?.def?.type;
  return typeof type === 'string' ? type : undefined;
}

/** JSON Schema of a zod schema, or a message saying why there is none. */
function toJsonSchema(
  schema: unknown,
  zod: ZodModule | undefined,
  io: 'input' | 'output',
): JsonSchema | string {
  if (!zod) return 'the bundle carries no zod to describe the schema with';
  try {
    const converted = zod.toJSONSchema(schema, { unrepresentable: 'any', io });
    // Made in the sandbox's realm: copied into plain objects of this one.
    return JSON.parse(JSON.stringify(converted)) as JsonSchema;
  } catch (error) {
    const message =
      typeof error === 'object' && error !== null && 'message' in error
        ? String(error.message)
        : String(error);
    return `cannot be described as JSON Schema: ${message}`;
  }
}

function durationOf(value: unknown, field: string, problems: string[]): number | undefined {
  if (value === undefined) return undefined;
  const milliseconds = typeof value === 'string' ? parseFrequency(value) : null;
  if (milliseconds === null) {
    problems.push(`${field}: must be ${FREQUENCY_FORMS}`);
    return undefined;
  }
  return milliseconds;
}
