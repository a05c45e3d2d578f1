/** What Junction POSTs to an environment's webhook URL after a sync run changed a model. */
export interface SyncWebhookPayload {
  readonly type: 'sync';
  readonly connectionId: string;
  readonly providerConfigKey: string;
  readonly syncName: string;
  readonly model: string;
  readonly responseResults: {
    readonly added: number;
    readonly updated: number;
    readonly deleted: number;
  };
  readonly syncType: 'INITIAL' | 'INCREMENTAL';
  /** Pass as `delta` / `modified_after` to listRecords to get exactly this run's changes. */
  readonly modifiedAfter: string;
}
