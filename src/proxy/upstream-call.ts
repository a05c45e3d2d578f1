import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { HOP_BY_HOP } from './proxy-headers';

export interface UpstreamResponse {
  readonly status: number;
  /** Lower-case names, hop-by-hop headers left out. */
  readonly headers: Record<string, string | string[]>;
  /** A body whose declared length is at most the small-body limit arrives whole; others stream. */
  readonly body: Buffer | Readable;
}

type Controller = Dispatcher.DispatchController;

/**
 * One request through undici's dispatcher with a handler of our own, rather than
 * `Dispatcher.request`: no response stream, body mixin or async resource per call for the small
 * bodies most API calls return, which are collected and handed over whole. Larger bodies, and
 * bodies of unknown length, become a stream that pauses the upstream socket while the reader is
 * behind (so a 200 MB download is never held in memory) and aborts the request when destroyed.
 */
export function callUpstream(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  smallBodyBytes: number,
): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(options, new UpstreamHandler(resolve, reject, smallBodyBytes));
  });
}

class UpstreamHandler implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: Record<string, string | string[]> = {};
  /** Set while a small body is being collected. */
  private chunks: Buffer[] | undefined;
  /** Set once a streamed body has been handed over. */
  private stream: Readable | undefined;
  private ended = false;

  constructor(
    private readonly resolve: (response: UpstreamResponse) => void,
    private readonly reject: (error: Error) => void,
    private readonly smallBodyBytes: number,
  ) {}

  onRequestStart(): void {
    // A retried dispatch (a pipelined request that failed on a dead socket) starts over.
    this.chunks = undefined;
  }

  onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // 1xx: the final answer follows
    this.status = statusCode;
    this.headers = withoutHopByHop(headers);
    const declared = Number(this.headers['content-length'] ?? Number.NaN);
    if (declared <= this.smallBodyBytes) {
      this.chunks = [];
      return;
    }
    this.stream = new Readable({
      read: () => controller.resume(),
      destroy: (error, done) => {
        if (!this.ended) controller.abort(error ?? new Error('the proxied response was abandoned'));
        done(error);
      },
    });
    this.resolve({ status: this.status, headers: this.headers, body: this.stream });
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.chunks) this.chunks.push(chunk);
    else if (this.stream && !this.stream.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.ended = true;
    if (this.chunks) {
      const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      this.resolve({ status: this.status, headers: this.headers, body });
    } else {
      this.stream?.push(null);
    }
  }

  onResponseError(_controller: Controller, error: Error): void {
    this.ended = true;
    if (this.stream) this.stream.destroy(error);
    else this.reject(error);
  }
}

function withoutHopByHop(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}
