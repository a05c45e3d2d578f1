import { Body, Controller, Headers, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type AuthenticatedEnvironment,
  CallerEnvironment,
} from '../auth/caller-environment.decorator';
import { InvalidRequestError } from '../common/errors/domain-error';
import { ActionsService } from './actions.service';
import { TriggerActionDto } from './dto/trigger-action.dto';

@ApiTags('actions')
@ApiBearerAuth()
@Controller('action')
export class ActionsController {
  constructor(private readonly actions: ActionsService) {}

  @Post('trigger')
  @HttpCode(200)
  @ApiOperation({ summary: 'Run an action on a worker and answer with its result' })
  @ApiHeader({ name: 'Connection-Id', required: true })
  @ApiHeader({ name: 'Provider-Config-Key', required: true })
  trigger(
    @CallerEnvironment() caller: AuthenticatedEnvironment,
    @Headers('connection-id') connectionId: string | undefined,
    @Headers('provider-config-key') providerConfigKey: string | undefined,
    @Body() body: TriggerActionDto,
  ): Promise<unknown> {
    const missing = [
      ...(connectionId
        ? []
        : [{ path: 'Connection-Id', message: 'the Connection-Id header is required' }]),
      ...(providerConfigKey
        ? []
        : [{ path: 'Provider-Config-Key', message: 'the Provider-Config-Key header is required' }]),
    ];
    if (missing.length > 0) throw new InvalidRequestError('Missing headers', missing);
    return this.actions.trigger(caller, {
      providerConfigKey: providerConfigKey ?? '',
      connectionId: connectionId ?? '',
      actionName: body.action_name,
      input: body.input,
    });
  }
}
