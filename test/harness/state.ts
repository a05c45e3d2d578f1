/** What the global setup started, handed to test files through the environment. */
export const HARNESS_ENV = {
  postgresUrl: 'JUNCTION_TEST_POSTGRES_URL',
  templateDatabase: 'JUNCTION_TEST_TEMPLATE_DATABASE',
  temporalAddress: 'JUNCTION_TEST_TEMPORAL_ADDRESS',
} as const;

export function harnessValue(name: keyof typeof HARNESS_ENV): string {
  const value = process.env[HARNESS_ENV[name]];
  if (!value)
    throw new Error(`${HARNESS_ENV[name]} is not set: run tests through jest (global setup)`);
  return value;
}
