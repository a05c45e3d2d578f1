import { Body, Controller, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CallerEnvironment,
  type AuthenticatedEnvironment,
} from '../auth/caller-environment.decorator';
import { UpdateEnvironmentDto } from './dto/update-environment.dto';
import { WebhookSecretDto } from './dto/webhook-secret.dto';
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

  @Post('webhook-secret')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the webhook secret',
    description:
      "Generates a new secret that signs this environment's webhooks from now on and returns it, the only time it is shown. The previous secret stops signing at once. No request body.",
  })
  @ApiOkResponse({ type: WebhookSecretDto })
  async rotateWebhookSecret(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
  ): Promise<WebhookSecretDto> {
    return { webhook_secret: await this.environments.rotateWebhookSecret(caller.id) };
  }
}
