import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'junction:isPublic';

/** Marks a route that answers without a secret key (health, readiness). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
