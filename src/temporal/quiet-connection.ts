import { Connection } from '@temporalio/client';

/**
 * A Temporal client connection that leaves Node's async hooks off between calls.
 *
 * The client passes a call's deadline, metadata and abort signal to its RPCs through an
 * AsyncLocalStorage, entered by `withDeadline`, `withMetadata` and `withAbortSignal` (and by the
 * connection's own first connect). On Node 20 an AsyncLocalStorage that was entered once stays
 * enabled for the life of the process, and with it an async hook that runs for every promise
 * and `process.nextTick` of the process: a tenth of the CPU of a proxied request, paid by every
 * route although only Temporal calls read the store.
 *
 * The store is read synchronously, when an RPC starts inside the callback, so it can be switched
 * off again once the callback's promise settles: the next `with…` call switches it back on.
 * Callers must therefore start their RPCs synchronously inside the callback (every call site in
 * this code base does).
 */
export class QuietConnection extends Connection {
  override async withDeadline<R>(deadline: number | Date, fn: () => Promise<R>): Promise<R> {
    return this.quietly(() => super.withDeadline(deadline, fn));
  }

  override async withMetadata<R>(
    metadata: Parameters<Connection['withMetadata']>[0],
    fn: () => Promise<R>,
  ): Promise<R> {
    return this.quietly(() => super.withMetadata(metadata, fn));
  }

  override async withAbortSignal<R>(abortSignal: AbortSignal, fn: () => Promise<R>): Promise<R> {
    return this.quietly(() => super.withAbortSignal(abortSignal, fn));
  }

  private async quietly<R>(call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } finally {
      this.callContextStorage.disable();
    }
  }
}
