export default async function globalTeardown(): Promise<void> {
  const stops =
    (globalThis as { junctionHarnessStops?: Array<() => Promise<void> | void> })
      .junctionHarnessStops ?? [];
  for (const stop of stops.reverse()) {
    await stop();
  }
}
