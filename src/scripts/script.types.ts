/** What the service stores about a deployed script, next to its bundle. */
export type ScriptKind = 'sync' | 'action';

/** JSON Schema (draft 2020-12) as produced by `z.toJSONSchema`. */
export type JsonSchema = Record<string, unknown>;

export interface SyncDefinitionJson {
  readonly kind: 'sync';
  readonly name: string;
  readonly integration: string;
  readonly description?: string;
  /** As written, for example `1h`; validated on deploy. */
  readonly frequency: string;
  readonly frequency_ms: number;
  readonly auto_start: boolean;
  readonly type: 'incremental' | 'full';
  readonly track_deletes: boolean;
  readonly models: Record<string, JsonSchema>;
  readonly timeout_ms?: number;
}

export interface ActionDefinitionJson {
  readonly kind: 'action';
  readonly name: string;
  readonly integration: string;
  readonly description?: string;
  readonly input_schema: JsonSchema;
  readonly output_schema?: JsonSchema;
  readonly timeout_ms?: number;
  readonly retries: number;
}

export type ScriptDefinitionJson = SyncDefinitionJson | ActionDefinitionJson;

/** One deployed version of a script. */
export interface DeployedScript {
  readonly scriptId: number;
  readonly environmentId: number;
  readonly integrationId: number;
  readonly providerConfigKey: string;
  readonly kind: ScriptKind;
  readonly name: string;
  readonly version: number;
  /** sha256 (hex) of the definition JSON and the bundle. */
  readonly hash: string;
  readonly definition: ScriptDefinitionJson;
  /** CommonJS bundle whose `module.exports.default` is the definition made by createSync/createAction. */
  readonly bundle: string;
  readonly deployedAt: Date;
}
