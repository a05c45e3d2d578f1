import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricsService } from './metrics.service';

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves /metrics on the operator port, apart from the API and without a key. */
export async function startMetricsServer(
  metrics: MetricsService,
  host: string,
  port: number,
): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found; try /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (body) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body),
      (error: unknown) =>
        response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
