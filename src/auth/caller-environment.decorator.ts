import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { EnvironmentName } from '../environments/entities/environment.entity';

export interface AuthenticatedEnvironment {
  readonly id: number;
  readonly name: EnvironmentName;
}

export type AuthenticatedRequest = FastifyRequest & { environment?: AuthenticatedEnvironment };

/** The environment selected by the caller's secret key; set by the auth guard. */
export const CallerEnvironment = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedEnvironment => {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!request.environment) throw new Error('Route reached without authentication');
    return request.environment;
  },
);
