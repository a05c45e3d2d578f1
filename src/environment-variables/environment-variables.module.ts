import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EnvironmentVariableEntity } from './entities/environment-variable.entity';
import { EnvironmentVariablesController } from './environment-variables.controller';
import { EnvironmentVariablesRepository } from './environment-variables.repository';
import { EnvironmentVariablesService } from './environment-variables.service';

@Module({
  imports: [TypeOrmModule.forFeature([EnvironmentVariableEntity])],
  controllers: [EnvironmentVariablesController],
  providers: [EnvironmentVariablesRepository, EnvironmentVariablesService],
  exports: [EnvironmentVariablesService],
})
export class EnvironmentVariablesModule {}
