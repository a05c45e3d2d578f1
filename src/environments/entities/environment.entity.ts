import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export const ENVIRONMENT_NAMES = ['dev', 'prod'] as const;
export type EnvironmentName = (typeof ENVIRONMENT_NAMES)[number];

@Entity({ name: 'environments' })
export class EnvironmentEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'text', unique: true })
  name: EnvironmentName;

  /** SHA-256 of the secret key; the key itself is never stored. */
  @Column({ name: 'secret_key_hash', type: 'text', unique: true })
  secretKeyHash: string;

  @Column({ name: 'webhook_url', type: 'text', nullable: true })
  webhookUrl: string | null;

  /** Signs webhooks; sealed by SecretBox, generated when first needed, never shown by GET. */
  @Column({ name: 'webhook_secret', type: 'text', nullable: true })
  webhookSecret: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
