import { Buffer } from 'node:buffer';
import {
  isHttpUrl,
  parseTemplateOrThrow,
  TemplateSyntaxError,
  urlPositions,
  urlTemplateProblems,
  type Placeholder,
  type UrlPosition,
} from './template';

/** What a template can be filled with: a connection's config and its credentials. */
export interface TemplateValues {
  readonly connectionConfig?: Readonly<Record<string, unknown>>;
  readonly apiKey?: string;
  readonly accessToken?: string;
  readonly username?: string;
  readonly password?: string;
}

/** A template names values the connection does not have. `missing` lists all of them. */
export class MissingTemplateValueError extends Error {
  constructor(readonly missing: string[]) {
    super(`Missing template values: ${missing.join(', ')}`);
    this.name = 'MissingTemplateValueError';
  }
}

/** A value exists but cannot go where the template puts it (for example into a host name). */
export class InvalidTemplateValueError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid template values: ${problems.join('; ')}`);
    this.name = 'InvalidTemplateValueError';
  }
}

type Placed = { readonly value: string } | { readonly problem: string };
type Credential = { readonly value: string } | { readonly missing: readonly string[] };
type Resolved = Placed | Credential;

interface Rendered {
  readonly text: string;
  readonly missing: readonly string[];
  readonly problems: readonly string[];
}

// Header values cannot carry these; refusing them stops header injection through a value.
const FORBIDDEN_IN_TEXT = /[\r\n\0]/;
const HOST_TEXT = /^[A-Za-z0-9_.-]+$/;

/** Fills a header or query template. `${base64(username:password)}` gives HTTP Basic's token. */
export function interpolate(template: string, values: TemplateValues): string {
  const rendered = render(template, values, false);
  throwIfProblems(rendered.missing, rendered.problems);
  return rendered.text;
}

/**
 * Fills a URL template. Values in the host must be plain host-name text (no `/`, `?`, `#`, `@`,
 * `:` or anything else that could end the host), values in the path are percent-encoded, and a
 * value opening the template must itself be a bare http(s) origin. So a connection's config can
 * choose a subdomain or a path segment, but never send the request elsewhere than the template
 * says.
 */
export function interpolateUrl(template: string, values: TemplateValues): string {
  const rendered = render(template, values, true);
  throwIfProblems(rendered.missing, rendered.problems);
  return rendered.text;
}

/** Fills every value of a header or query record, reporting all missing values at once. */
export function interpolateRecord(
  record: Readonly<Record<string, string>>,
  values: TemplateValues,
): Record<string, string> {
  const result: Record<string, string> = {};
  const missing = new Set<string>();
  const problems: string[] = [];
  for (const [name, template] of Object.entries(record)) {
    const rendered = render(template, values, false);
    rendered.missing.forEach((entry) => missing.add(entry));
    problems.push(...rendered.problems.map((problem) => `${name}: ${problem}`));
    result[name] = rendered.text;
  }
  throwIfProblems([...missing], problems);
  return result;
}

function throwIfProblems(missing: readonly string[], problems: readonly string[]): void {
  if (missing.length > 0) throw new MissingTemplateValueError([...missing]);
  if (problems.length > 0) throw new InvalidTemplateValueError([...problems]);
}

function render(template: string, values: TemplateValues, asUrl: boolean): Rendered {
  const parts = parseTemplateOrThrow(template);
  if (asUrl) {
    const structural = urlTemplateProblems(parts);
    if (structural.length > 0) throw new TemplateSyntaxError(template, structural);
  }
  const positions = asUrl ? urlPositions(parts) : [];
  const missing = new Set<string>();
  const problems: string[] = [];
  let text = '';
  parts.forEach((part, index) => {
    if ('text' in part) {
      text += part.text;
      return;
    }
    const resolved = resolve(part.placeholder, values);
    if ('missing' in resolved) {
      resolved.missing.forEach((name) => missing.add(name));
      return;
    }
    if ('problem' in resolved) {
      problems.push(resolved.problem);
      return;
    }
    const name = valueName(part.placeholder);
    const position = positions[index];
    const placed = position
      ? placeInUrl(name, resolved.value, position)
      : placeInText(name, resolved.value);
    if ('problem' in placed) problems.push(placed.problem);
    else text += placed.value;
  });
  if (asUrl && missing.size === 0 && problems.length === 0 && !isHttpUrl(text)) {
    problems.push(`"${text}" is not an http(s) URL`);
  }
  return { text, missing: [...missing], problems };
}

function valueName(placeholder: Placeholder): string {
  if (placeholder.kind === 'connectionConfig') return `connectionConfig.${placeholder.key}`;
  return placeholder.kind === 'basic' ? 'base64(username:password)' : placeholder.kind;
}

function resolve(placeholder: Placeholder, values: TemplateValues): Resolved {
  switch (placeholder.kind) {
    case 'connectionConfig':
      return configValue(placeholder.key, values.connectionConfig?.[placeholder.key]);
    case 'basic': {
      const username = credential('username', values.username);
      const password = credential('password', values.password);
      if ('missing' in username || 'missing' in password) {
        return { missing: [username, password].flatMap((entry) => missingOf(entry)) };
      }
      const token = Buffer.from(`${username.value}:${password.value}`, 'utf8').toString('base64');
      return { value: token };
    }
    default:
      return credential(placeholder.kind, values[placeholder.kind]);
  }
}

function missingOf(resolved: Credential): readonly string[] {
  return 'missing' in resolved ? resolved.missing : [];
}

function credential(name: string, value: string | undefined): Credential {
  // An empty password is legitimate: many APIs take an API key as the user name alone.
  if (value === undefined || value === null || (value === '' && name !== 'password')) {
    return { missing: [name] };
  }
  return { value };
}

function configValue(key: string, value: unknown): Resolved {
  const name = `connectionConfig.${key}`;
  if (value === undefined || value === null || value === '') return { missing: [name] };
  if (typeof value === 'string') return { value };
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') {
    return { value: String(value) };
  }
  return { problem: `${name} must be a string, got ${typeof value}` };
}

function placeInText(name: string, value: string): Placed {
  if (FORBIDDEN_IN_TEXT.test(value)) {
    return { problem: `${name} contains a line break or NUL character` };
  }
  return { value };
}

function placeInUrl(name: string, value: string, position: UrlPosition): Placed {
  switch (position) {
    case 'origin':
      return placeOrigin(name, value);
    case 'host': {
      if (HOST_TEXT.test(value)) return { value };
      const refused = [...new Set(value.replace(/[A-Za-z0-9_.-]/g, ''))];
      const listed = refused.map((character) => JSON.stringify(character)).join(', ');
      return { problem: `${name} cannot be part of a host name: "${value}" contains ${listed}` };
    }
    case 'path':
      // Dot segments survive percent-encoding and would climb out of the template's path.
      if (value === '.' || value === '..') {
        return { problem: `${name} cannot be a relative path segment ("${value}")` };
      }
      return { value: encodeURIComponent(value) };
    case 'scheme':
      return { problem: `${name} cannot be part of the URL scheme` };
  }
}

function placeOrigin(name: string, value: string): Placed {
  const refusal = {
    problem: `${name} must be a bare http(s) origin such as https://example.com, got "${value}"`,
  };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refusal;
  }
  const bare =
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '';
  return bare ? { value: url.origin } : refusal;
}
