/** What an action run ends with, as plain JSON (it travels through Temporal). */
export type ActionOutcome =
  | { readonly ok: true; readonly output: unknown }
  | {
      readonly ok: false;
      readonly failure: 'action_error';
      readonly payload: unknown;
      readonly status: number;
    }
  | {
      readonly ok: false;
      readonly failure: 'invalid_input';
      readonly issues: readonly { readonly path: string; readonly message: string }[];
    }
  | {
      readonly ok: false;
      readonly failure: 'timeout' | 'script_error';
      readonly message: string;
    };

export interface ActionRunInput {
  readonly connectionRowId: number;
  readonly actionName: string;
  readonly scriptId: number;
  readonly version: number;
  readonly input: unknown;
  readonly timeoutMs: number;
  readonly retries: number;
}
