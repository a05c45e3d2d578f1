import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import {
  type AuthenticatedEnvironment,
  CallerEnvironment,
} from '../auth/caller-environment.decorator';
import { SetEnvironmentVariablesDto } from './dto/environment-variables.dto';
import {
  type EnvironmentVariable,
  EnvironmentVariablesService,
} from './environment-variables.service';

@ApiTags('environment-variables')
@ApiBearerAuth()
@Controller('environment-variables')
export class EnvironmentVariablesController {
  constructor(private readonly variables: EnvironmentVariablesService) {}

  @Get()
  list(@CallerEnvironment() caller: AuthenticatedEnvironment): Promise<EnvironmentVariable[]> {
    return this.variables.list(caller.id);
  }

  /** Replaces every variable of the environment with the given list. */
  @Put()
  replace(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Body() body: SetEnvironmentVariablesDto,
  ): Promise<EnvironmentVariable[]> {
    return this.variables.replaceAll(caller.id, body.variables);
  }
}
