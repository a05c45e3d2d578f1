/**
 * The placeholder language of provider templates, shared by the schema (which checks templates
 * once, when the catalog loads) and by `interpolate` (which fills them per request).
 */

/** Keys of `connection_config` that templates may name. */
export const CONNECTION_CONFIG_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type CredentialPlaceholder = 'apiKey' | 'accessToken' | 'username' | 'password' | 'basic';

export type Placeholder =
  | { readonly kind: 'connectionConfig'; readonly key: string }
  | { readonly kind: CredentialPlaceholder };

export type TemplatePart = { readonly text: string } | { readonly placeholder: Placeholder };

/** Where a placeholder sits in a URL template, which decides how its value is checked. */
export type UrlPosition = 'origin' | 'host' | 'path' | 'scheme';

const CREDENTIALS: Readonly<Record<string, CredentialPlaceholder>> = {
  apiKey: 'apiKey',
  accessToken: 'accessToken',
  username: 'username',
  password: 'password',
  'base64(username:password)': 'basic',
};

/** The placeholder as written in a template, for messages. */
export function placeholderText(placeholder: Placeholder): string {
  if (placeholder.kind === 'connectionConfig') return `\${connectionConfig.${placeholder.key}}`;
  if (placeholder.kind === 'basic') return '${base64(username:password)}';
  return `\${${placeholder.kind}}`;
}

export class TemplateSyntaxError extends Error {
  constructor(
    readonly template: string,
    readonly problems: readonly string[],
  ) {
    super(`Invalid template "${template}": ${problems.join('; ')}`);
    this.name = 'TemplateSyntaxError';
  }
}

/** Splits a template into text and placeholders, reporting every unknown or unclosed placeholder. */
export function parseTemplate(template: string): {
  readonly parts: readonly TemplatePart[];
  readonly problems: readonly string[];
} {
  const parts: TemplatePart[] = [];
  const problems: string[] = [];
  let index = 0;
  while (index < template.length) {
    const start = template.indexOf('${', index);
    if (start === -1) {
      parts.push({ text: template.slice(index) });
      break;
    }
    if (start > index) parts.push({ text: template.slice(index, start) });
    const end = template.indexOf('}', start);
    if (end === -1) {
      problems.push(`unclosed placeholder "${template.slice(start)}"`);
      break;
    }
    const inner = template.slice(start + 2, end);
    const placeholder = readPlaceholder(inner);
    if (placeholder) parts.push({ placeholder });
    else problems.push(`unknown placeholder "\${${inner}}"`);
    index = end + 1;
  }
  return { parts, problems };
}

/** Parses a template that is expected to be valid (it passed the schema). */
export function parseTemplateOrThrow(template: string): readonly TemplatePart[] {
  const { parts, problems } = parseTemplate(template);
  if (problems.length > 0) throw new TemplateSyntaxError(template, problems);
  return parts;
}

function readPlaceholder(inner: string): Placeholder | undefined {
  const credential = CREDENTIALS[inner];
  if (credential) return { kind: credential };
  const match = /^connectionConfig\.(.+)$/.exec(inner);
  if (match?.[1] && CONNECTION_CONFIG_KEY.test(match[1])) {
    return { kind: 'connectionConfig', key: match[1] };
  }
  return undefined;
}

/**
 * Structural problems of a URL template: credentials (URLs end up in logs, so keys travel only in
 * headers and query parameters), a placeholder that would pick the scheme, and an origin
 * placeholder glued to more host text (`${connectionConfig.url}.example.com`).
 */
export function urlTemplateProblems(parts: readonly TemplatePart[]): readonly string[] {
  const problems: string[] = [];
  const positions = urlPositions(parts);
  parts.forEach((part, index) => {
    if ('text' in part) return;
    const written = placeholderText(part.placeholder);
    if (part.placeholder.kind !== 'connectionConfig') {
      problems.push(`${written} cannot be used in a URL; credentials go in headers or query`);
    } else if (positions[index] === 'scheme') {
      problems.push(`${written} cannot be part of the URL scheme`);
    } else if (positions[index] === 'origin') {
      const next = parts[index + 1];
      if (next && !('text' in next && /^[/?#]/.test(next.text))) {
        problems.push(`${written} opens the URL, so it must be the whole origin`);
      }
    }
  });
  return problems;
}

/**
 * Classifies each part of a URL template. A placeholder that opens the template supplies the whole
 * origin (Salesforce's `instance_url`); one before the first `/`, `?` or `#` after `://` is part of
 * the host; anything later is in the path, query or fragment. A placeholder before `://` that does
 * not open the template would let a value choose the scheme, so it is reported as `scheme`.
 */
export function urlPositions(parts: readonly TemplatePart[]): readonly (UrlPosition | undefined)[] {
  // Stand-in text for a placeholder, so that its own value cannot influence the classification.
  let seen = '';
  return parts.map((part, index) => {
    if ('text' in part) {
      seen += part.text;
      return undefined;
    }
    let position: UrlPosition;
    if (index === 0) {
      position = 'origin';
      seen += 'https://origin';
    } else {
      const schemeEnd = seen.indexOf('://');
      if (schemeEnd === -1) position = 'scheme';
      else position = /[/?#]/.test(seen.slice(schemeEnd + 3)) ? 'path' : 'host';
      seen += 'x';
    }
    return position;
  });
}

export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
