import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

@Entity({ name: 'connections' })
export class ConnectionEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'environment_id', type: 'integer' })
  environmentId: number;

  @Column({ name: 'integration_id', type: 'integer' })
  integrationId: number;

  @Column({ name: 'connection_id', type: 'text' })
  connectionId: string;

  /** Encrypted JSON of `StoredCredentials` (SecretBox, context `connection.credentials`). */
  @Column({ type: 'text' })
  credentials: string;

  /** Bumped by every import and refresh; waiters compare it to see a refresh land. */
  @Column({ name: 'credentials_version', type: 'integer', default: 1 })
  credentialsVersion: number;

  @Column({ name: 'credentials_expires_at', type: 'timestamptz', nullable: true })
  credentialsExpiresAt: Date | null;

  @Column({ name: 'connection_config', type: 'jsonb', default: {} })
  connectionConfig: Record<string, unknown>;

  @Column({ type: 'jsonb', nullable: true })
  metadata: Record<string, unknown> | null;

  @Column({ name: 'refresh_lease_owner', type: 'text', nullable: true })
  refreshLeaseOwner: string | null;

  @Column({ name: 'refresh_lease_until', type: 'timestamptz', nullable: true })
  refreshLeaseUntil: Date | null;

  @Column({ name: 'refresh_failures', type: 'integer', default: 0 })
  refreshFailures: number;

  @Column({ name: 'last_refresh_error', type: 'text', nullable: true })
  lastRefreshError: string | null;

  @Column({ name: 'last_refresh_failure_at', type: 'timestamptz', nullable: true })
  lastRefreshFailureAt: Date | null;

  @Column({ name: 'last_refresh_at', type: 'timestamptz', nullable: true })
  lastRefreshAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
