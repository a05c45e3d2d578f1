import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { ProviderDefinition } from '../provider.types';

/** A provider an environment added through the API; wins over the catalog entry of its name. */
@Entity({ name: 'custom_providers' })
export class CustomProviderEntity {
  @PrimaryColumn({ name: 'environment_id', type: 'integer' })
  environmentId: number;

  @PrimaryColumn({ type: 'text' })
  name: string;

  @Column({ type: 'jsonb' })
  definition: ProviderDefinition;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
