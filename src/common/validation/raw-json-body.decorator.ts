import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * The parsed JSON body, untouched by the DTO pipe: for bodies a domain validates itself
 * (free-form definitions checked against their own schema).
 */
export const RawJsonBody = createParamDecorator(
  (_data: unknown, context: ExecutionContext): unknown =>
    context.switchToHttp().getRequest<FastifyRequest>().body,
);
