import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

export interface PendingAnswer {
  readonly response: ServerResponse;
  readonly status: number;
  readonly headers: OutgoingHttpHeaders;
  readonly body: Buffer;
}

export interface ResponseBatchEvents<Answer extends PendingAnswer> {
  /** The answer went to the socket. */
  readonly written: (answer: Answer) => void;
  /** Node refused the head (an upstream header it will not send); nothing was written. */
  readonly refused: (answer: Answer, error: unknown) => void;
}

/**
 * Small answers are written together once the current turn of the event loop has handled
 * everything that was ready, rather than one by one as each upstream answer is read. Writing a
 * response to a socket whose reader sleeps pays for waking that reader; writing a burst of them
 * pays that about once per burst. The batch goes out in the same turn (`setImmediate` runs right
 * after the I/O callbacks of the turn), so no answer waits for a timer or for new I/O.
 */
export class ResponseBatch<Answer extends PendingAnswer> {
  private pending: Answer[] = [];

  constructor(private readonly events: ResponseBatchEvents<Answer>) {}

  end(answer: Answer): void {
    if (this.pending.length === 0) setImmediate(this.flush);
    this.pending.push(answer);
  }

  private readonly flush = (): void => {
    const answers = this.pending;
    this.pending = [];
    for (const answer of answers) {
      const { response } = answer;
      if (response.destroyed) continue;
      try {
        response.writeHead(answer.status, answer.headers);
      } catch (error) {
        this.events.refused(answer, error);
        continue;
      }
      response.end(answer.body);
      this.events.written(answer);
    }
  };
}
