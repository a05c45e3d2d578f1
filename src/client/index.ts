export { Junction, type JunctionClientOptions } from './junction-client';
export { JunctionError, type JunctionFieldError } from './errors';
export type * from './types';
