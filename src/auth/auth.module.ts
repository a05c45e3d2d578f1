import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { EnvironmentsModule } from '../environments/environments.module';
import { AuthGuard } from './auth.guard';
import { SecretKeyResolver } from './secret-key-resolver';

@Module({
  imports: [EnvironmentsModule],
  providers: [SecretKeyResolver, { provide: APP_GUARD, useClass: AuthGuard }],
  exports: [SecretKeyResolver],
})
export class AuthModule {}
