import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import {
  CallerEnvironment,
  type AuthenticatedEnvironment,
} from '../auth/caller-environment.decorator';
import { UpdateEnvironmentDto } from './dto/update-environment.dto';
import { EnvironmentsService, type EnvironmentView } from './environments.service';

@ApiTags('environment')
@ApiBearerAuth()
@Controller('environment')
export class EnvironmentsController {
  constructor(private readonly environments: EnvironmentsService) {}

  @Get()
  get(@CallerEnvironment() caller: AuthenticatedEnvironment): Promise<EnvironmentView> {
    return this.environments.get(caller.id);
  }

  @Patch()
  update(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Body() body: UpdateEnvironmentDto,
  ): Promise<EnvironmentView> {
    return this.environments.setWebhookUrl(caller.id, body.webhook_url);
  }
}
