import { z } from 'zod';
import { templateProblems, type SchemaProblem } from './provider-templates';
import { AUTH_MODES, type ProviderDefinition } from './provider.types';

export const PROVIDER_NAME = /^[a-z0-9][a-z0-9-]*$/;

const stringRecord = z.record(z.string(), z.string());

/** The shape of a definition; template rules and rules across fields live in provider-templates. */
export const providerDefinitionSchema = z.strictObject({
  name: z.string().regex(PROVIDER_NAME, 'must be lower-case letters, digits and dashes'),
  display_name: z.string().trim().min(1, 'must not be empty'),
  auth_mode: z.enum(AUTH_MODES),
  authorization_url: z.string().optional(),
  token_url: z.string().optional(),
  request_url: z.string().optional(),
  token_request_auth_method: z.enum(['body', 'basic']).optional(),
  authorization_params: stringRecord.optional(),
  token_params: stringRecord.optional(),
  refresh_params: stringRecord.optional(),
  token_expiry_buffer_seconds: z.int().min(0).max(86_400).optional(),
  scope_separator: z.string().min(1, 'must not be empty').optional(),
  connection_config_keys: z
    .array(z.string())
    .refine((keys) => new Set(keys).size === keys.length, 'must not repeat a key')
    .optional(),
  proxy: z
    .strictObject({
      base_url: z.string().optional(),
      headers: stringRecord.optional(),
      query: stringRecord.optional(),
      rate_limit_reset_header: z.string().min(1, 'must not be empty').optional(),
    })
    .optional(),
  docs: z.string(),
}) satisfies z.ZodType<ProviderDefinition>;

/** A provider definition (or a catalog) that breaks the rules; `problems` lists every one. */
export class ProviderDefinitionError extends Error {
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(
      `Invalid provider definitions in ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'ProviderDefinitionError';
  }
}

/** Validates one definition; throws a `ProviderDefinitionError` naming the provider and paths. */
export function parseProviderDefinition(input: unknown, source: string): ProviderDefinition {
  const { definition, problems } = check(input, undefined);
  if (!definition || problems.length > 0) throw new ProviderDefinitionError(source, problems);
  return definition;
}

/** Validates a list of definitions, reporting every problem of every entry and repeated names. */
export function parseCatalog(list: unknown, source: string): ProviderDefinition[] {
  if (!Array.isArray(list)) {
    throw new ProviderDefinitionError(source, ['the catalog must be a JSON array of providers']);
  }
  const definitions: ProviderDefinition[] = [];
  const problems: string[] = [];
  const firstIndex = new Map<string, number>();
  list.forEach((entry: unknown, index) => {
    const checked = check(entry, index);
    problems.push(...checked.problems);
    if (checked.definition) definitions.push(checked.definition);
    // Checked on the raw name, so a duplicate is reported even when either entry has other faults.
    const name = rawName(entry);
    if (name === undefined) return;
    const earlier = firstIndex.get(name);
    if (earlier === undefined) {
      firstIndex.set(name, index);
      return;
    }
    problems.push(
      `${label(entry, index)} at name: duplicate name, already used by entry ${earlier}`,
    );
  });
  if (problems.length > 0) throw new ProviderDefinitionError(source, problems);
  return definitions;
}

function check(
  input: unknown,
  index: number | undefined,
): { definition?: ProviderDefinition; problems: string[] } {
  const parsed = providerDefinitionSchema.safeParse(input);
  const issues: SchemaProblem[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({ path: issue.path, message: issue.message }));
  // Template rules run on the raw input too, so one pass reports shape and template problems.
  issues.push(...templateProblems(input));
  const problems = issues.map(
    (issue) => `${label(input, index)} at ${formatPath(issue.path)}: ${issue.message}`,
  );
  return parsed.success && problems.length === 0
    ? { definition: parsed.data, problems }
    : { problems };
}

function rawName(input: unknown): string | undefined {
  return typeof input === 'object' &&
    input !== null &&
    'name' in input &&
    typeof input.name === 'string'
    ? input.name
    : undefined;
}

function label(input: unknown, index: number | undefined): string {
  const name = rawName(input);
  const provider = name === undefined ? 'provider without a name' : `provider "${name}"`;
  return index === undefined ? provider : `${provider} (entry ${index})`;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(definition)';
  return path.map((segment) => String(segment)).join('.');
}
