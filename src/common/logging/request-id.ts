import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REQUEST_ID = Symbol('junction.requestId');
const ACCEPTABLE_ID = /^[\w.:-]{1,128}$/;

type WithRequestId = IncomingMessage & { [REQUEST_ID]?: string };

/**
 * One id per request, shared by the HTTP server and the request logger: the caller's
 * `X-Request-Id` when it is sane, else a new UUID.
 */
export function requestIdOf(request: IncomingMessage): string {
  const tagged = request as WithRequestId;
  if (tagged[REQUEST_ID]) return tagged[REQUEST_ID];
  const given = request.headers['x-request-id'];
  const id = typeof given === 'string' && ACCEPTABLE_ID.test(given) ? given : randomUUID();
  tagged[REQUEST_ID] = id;
  return id;
}
