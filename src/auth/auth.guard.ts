import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError } from '../common/errors/domain-error';
import type {
  AuthenticatedEnvironment,
  AuthenticatedRequest,
} from './caller-environment.decorator';
import { IS_PUBLIC } from './public.decorator';
import { SecretKeyResolver } from './secret-key-resolver';

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

export class AuthenticationError extends DomainError {}

/**
 * The environment of an `Authorization: Bearer <secret key>` header; shared by the guard and the
 * routes served outside Nest's pipeline (the streaming proxy).
 */
export async function authenticate(
  header: string | undefined,
  resolver: SecretKeyResolver,
): Promise<AuthenticatedEnvironment> {
  return known(await resolver.resolve(secretKeyOf(header)));
}

/**
 * `authenticate` without waiting, when the key's environment is in memory; undefined when it
 * must be looked up. A missing, malformed or known-bad key throws as in `authenticate`.
 */
export function authenticateCached(
  header: string | undefined,
  resolver: SecretKeyResolver,
): AuthenticatedEnvironment | undefined {
  const environment = resolver.cached(secretKeyOf(header));
  return environment === undefined ? undefined : known(environment);
}

function secretKeyOf(header: string | undefined): string {
  if (header === undefined || header === '') {
    throw new AuthenticationError(
      'missing_api_key',
      'Authentication required: send the header "Authorization: Bearer <secret key>"',
    );
  }
  const match = BEARER.exec(header);
  if (!match?.[1]) {
    throw new AuthenticationError(
      'malformed_api_key',
      'The Authorization header must be "Bearer <secret key>"',
    );
  }
  return match[1];
}

function known(environment: AuthenticatedEnvironment | null): AuthenticatedEnvironment {
  if (!environment) {
    throw new AuthenticationError(
      'unknown_api_key',
      'The secret key is not valid for any environment',
    );
  }
  return environment;
}

/** Every route needs `Authorization: Bearer <secret key>` unless marked public. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly resolver: SecretKeyResolver,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;

    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const environment = await authenticate(request.headers.authorization, this.resolver);
    request.environment = environment;
    return true;
  }
}
