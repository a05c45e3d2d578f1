import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'environment_variables' })
export class EnvironmentVariableEntity {
  @PrimaryColumn({ name: 'environment_id', type: 'integer' })
  environmentId: number;

  @PrimaryColumn({ type: 'text' })
  name: string;

  /** Encrypted (SecretBox, context `environment_variable.value`). */
  @Column({ type: 'text' })
  value: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
