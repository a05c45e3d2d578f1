export interface Environment {
  readonly name: 'dev' | 'prod';
  readonly webhook_url: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface UpdateEnvironmentInput {
  readonly webhook_url: string | null;
}
