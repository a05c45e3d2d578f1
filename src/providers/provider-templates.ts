import {
  CONNECTION_CONFIG_KEY,
  isHttpUrl,
  parseTemplate,
  placeholderText,
  urlPositions,
  urlTemplateProblems,
  type CredentialPlaceholder,
  type TemplatePart,
} from './template';
import { AUTH_MODES, type AuthMode } from './provider.types';

export interface SchemaProblem {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

type Path = readonly PropertyKey[];
type JsonObject = Readonly<Record<string, unknown>>;

/** Fields that only some modes use; anything else on a definition is a mistake worth reporting. */
const FIELD_MODES: Readonly<Record<string, readonly AuthMode[]>> = {
  authorization_url: ['OAUTH2', 'OAUTH1'],
  token_url: ['OAUTH2', 'OAUTH1'],
  request_url: ['OAUTH1'],
  token_request_auth_method: ['OAUTH2'],
  authorization_params: ['OAUTH2', 'OAUTH1'],
  token_params: ['OAUTH2'],
  refresh_params: ['OAUTH2'],
  token_expiry_buffer_seconds: ['OAUTH2'],
  scope_separator: ['OAUTH2', 'OAUTH1'],
};

const REQUIRED_FIELDS: Readonly<Record<AuthMode, readonly string[]>> = {
  OAUTH2: ['authorization_url', 'token_url'],
  OAUTH1: ['request_url', 'authorization_url', 'token_url'],
  API_KEY: [],
  BASIC: [],
};

/** The mode whose credentials each placeholder reads. OAuth 1 requests are signed, not templated. */
const CREDENTIAL_MODE: Readonly<Record<CredentialPlaceholder, AuthMode>> = {
  apiKey: 'API_KEY',
  accessToken: 'OAUTH2',
  username: 'BASIC',
  password: 'BASIC',
  basic: 'BASIC',
};

const BASIC_PLACEHOLDERS: readonly CredentialPlaceholder[] = ['basic', 'username', 'password'];

/** Headers the proxy itself owns; a template setting them would break or redirect requests. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * Rules about templates and about fields together. Runs on raw input, tolerating wrong types
 * (the zod shape reports those), so that one pass lists every problem.
 */
export function templateProblems(input: unknown): SchemaProblem[] {
  const definition = asRecord(input);
  if (!definition) return [];
  const mode = AUTH_MODES.find((candidate) => candidate === definition.auth_mode);
  const context = new Checker(mode);

  for (const field of ['authorization_url', 'token_url', 'request_url'] as const) {
    context.url(definition[field], [field]);
  }
  for (const field of ['authorization_params', 'token_params', 'refresh_params'] as const) {
    context.record(definition[field], [field], 'params');
  }
  for (const field of ['name', 'display_name', 'scope_separator'] as const) {
    context.plain(definition[field], [field]);
  }
  context.docs(definition.docs);
  const proxy = asRecord(definition.proxy);
  if (proxy) {
    context.url(proxy.base_url, ['proxy', 'base_url']);
    context.record(proxy.headers, ['proxy', 'headers'], 'proxy');
    context.headerNames(proxy.headers);
    context.record(proxy.query, ['proxy', 'query'], 'proxy');
    context.plain(proxy.rate_limit_reset_header, ['proxy', 'rate_limit_reset_header']);
  }
  context.connectionConfigKeys(definition.connection_config_keys);
  if (mode) context.modeFields(definition, mode);
  return context.problems;
}

class Checker {
  readonly problems: SchemaProblem[] = [];
  private readonly credentialsUsed = new Set<CredentialPlaceholder>();
  private readonly configUses: Array<{ key: string; path: Path }> = [];

  constructor(private readonly mode: AuthMode | undefined) {}

  url(value: unknown, path: Path): void {
    const parts = this.template(value, path, 'url');
    if (!parts || typeof value !== 'string') return;
    const structural = urlTemplateProblems(parts);
    structural.forEach((message) => this.report(path, message));
    if (structural.length === 0 && !isHttpUrl(sampleUrl(parts))) {
      this.report(path, `must be an http(s) URL once placeholders are filled, got "${value}"`);
    }
  }

  record(value: unknown, path: Path, location: 'params' | 'proxy'): void {
    const entries = asRecord(value);
    if (!entries) return;
    for (const [key, entry] of Object.entries(entries)) {
      this.plain(key, [...path, key]);
      this.template(entry, [...path, key], location);
    }
  }

  plain(value: unknown, path: Path): void {
    if (typeof value === 'string' && value.includes('${')) {
      this.report(path, 'placeholders are not allowed here');
    }
  }

  docs(value: unknown): void {
    this.plain(value, ['docs']);
    if (typeof value === 'string' && !isHttpUrl(value)) {
      this.report(['docs'], `must be an http(s) URL, got "${value}"`);
    }
  }

  headerNames(value: unknown): void {
    const headers = asRecord(value);
    if (!headers) return;
    const seen = new Set<string>();
    for (const name of Object.keys(headers)) {
      const path = ['proxy', 'headers', name];
      const lower = name.toLowerCase();
      if (!HEADER_NAME.test(name)) this.report(path, 'is not a valid header name');
      if (RESERVED_HEADERS.has(lower)) this.report(path, 'is set by the proxy itself');
      if (seen.has(lower)) this.report(path, 'repeats a header name (names ignore case)');
      seen.add(lower);
    }
  }

  connectionConfigKeys(value: unknown): void {
    const declared = Array.isArray(value) ? value : [];
    declared.forEach((key: unknown, index) => {
      if (typeof key === 'string' && !CONNECTION_CONFIG_KEY.test(key)) {
        this.report(['connection_config_keys', index], 'must be letters, digits and underscores');
      }
    });
    for (const use of this.configUses) {
      if (!declared.includes(use.key)) {
        this.report(
          use.path,
          `uses \${connectionConfig.${use.key}} but "${use.key}" is not in connection_config_keys`,
        );
      }
    }
  }

  modeFields(definition: JsonObject, mode: AuthMode): void {
    for (const field of REQUIRED_FIELDS[mode]) {
      if (definition[field] === undefined) {
        this.report([field], `${field} is required for ${mode} providers`);
      }
    }
    for (const [field, modes] of Object.entries(FIELD_MODES)) {
      if (definition[field] !== undefined && !modes.includes(mode)) {
        this.report([field], `only ${modes.join(' and ')} providers use ${field}`);
      }
    }
    if (mode === 'API_KEY' && !this.credentialsUsed.has('apiKey')) {
      this.report(
        ['proxy'],
        'API_KEY providers must send ${apiKey} in proxy.headers or proxy.query',
      );
    }
    const basicUsed = BASIC_PLACEHOLDERS.some((kind) => this.credentialsUsed.has(kind));
    if (mode === 'BASIC' && !basicUsed) {
      this.report(
        ['proxy'],
        'BASIC providers must send their credentials in proxy.headers, e.g. ' +
          '"Authorization": "Basic ${base64(username:password)}"',
      );
    }
  }

  /** Checks one template string; returns its parts when its syntax is valid. */
  private template(
    value: unknown,
    path: Path,
    location: 'url' | 'params' | 'proxy',
  ): readonly TemplatePart[] | undefined {
    if (typeof value !== 'string') return undefined;
    const { parts, problems } = parseTemplate(value);
    problems.forEach((message) => this.report(path, message));
    for (const part of parts) {
      if ('text' in part) continue;
      const { placeholder } = part;
      if (placeholder.kind === 'connectionConfig') {
        this.configUses.push({ key: placeholder.key, path });
        continue;
      }
      const written = placeholderText(placeholder);
      const owner = CREDENTIAL_MODE[placeholder.kind];
      if (location === 'params') {
        this.report(
          path,
          `${written} cannot be used here; credentials go only in proxy.headers and proxy.query`,
        );
      } else if (location === 'proxy' && this.mode && owner !== this.mode) {
        this.report(path, `${written} is only allowed for ${owner} providers, not ${this.mode}`);
      }
      if (location === 'proxy') this.credentialsUsed.add(placeholder.kind);
    }
    return problems.length === 0 ? parts : undefined;
  }

  private report(path: Path, message: string): void {
    this.problems.push({ path, message });
  }
}

/** The URL with placeholders replaced by harmless values of the right shape for their position. */
function sampleUrl(parts: readonly TemplatePart[]): string {
  const positions = urlPositions(parts);
  return parts
    .map((part, index) => {
      if ('text' in part) return part.text;
      return positions[index] === 'origin' ? 'https://sample.example' : 'sample';
    })
    .join('');
}

function asRecord(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}
