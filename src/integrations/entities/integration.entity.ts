import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/** An environment's configuration of one provider, named by its `unique_key` (provider_config_key). */
@Entity({ name: 'integrations' })
export class IntegrationEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'environment_id', type: 'integer' })
  environmentId: number;

  @Column({ name: 'unique_key', type: 'text' })
  uniqueKey: string;

  @Column({ type: 'text' })
  provider: string;

  @Column({ name: 'oauth_client_id', type: 'text', nullable: true })
  oauthClientId: string | null;

  /** Encrypted (SecretBox, context `integration.oauth_client_secret`). */
  @Column({ name: 'oauth_client_secret', type: 'text', nullable: true })
  oauthClientSecret: string | null;

  @Column({ name: 'oauth_scopes', type: 'text', nullable: true })
  oauthScopes: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
