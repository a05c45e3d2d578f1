export interface TemporalModuleOptions {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
}

export const TEMPORAL_OPTIONS = Symbol('TEMPORAL_OPTIONS');
