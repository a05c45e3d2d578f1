/** The context each encrypted column's values are sealed under (authenticated, not secret). */
export const ENCRYPTION_CONTEXTS = {
  clientSecret: 'integration.oauth_client_secret',
  credentials: 'connection.credentials',
  environmentVariable: 'environment_variable.value',
  webhookSecret: 'environment.webhook_secret',
} as const;
