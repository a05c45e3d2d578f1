/**
 * Search attributes every Junction workflow and schedule carries, so an operator can filter the
 * Temporal UI by them, e.g. `JunctionConnection = "user-42"`.
 */
export const SEARCH_ATTRIBUTES = {
  environment: 'JunctionEnvironment',
  integration: 'JunctionIntegration',
  connection: 'JunctionConnection',
  sync: 'JunctionSync',
  action: 'JunctionAction',
} as const;
