declare module 'oauth-sign' {
  export function hmacsign(
    httpMethod: string,
    base_uri: string,
    params: Record<string, string>,
    consumer_secret: string,
    token_secret?: string,
  ): string;
}
