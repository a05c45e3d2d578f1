import { Injectable, Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { ConnectionsService } from '../connections/connections.service';
import { RecordsReadRepository, type Statement } from './records-read.repository';
import { recordJson, rowCursor } from './record-json';
import type { LegacyRecordsQuery, ListRecordsQuery } from './records-query';

/** A response body: JSON text, or a stream of JSON text when every record was asked for. */
export type RecordsBody = string | Readable;

/** Chunks of a streamed body held ahead of a slow client (each up to 64 records). */
const STREAM_HIGH_WATER_MARK = 16;

/** The two record routes: keyset pages (listRecords) and offset pages (deprecated getRecords). */
@Injectable()
export class RecordsReadService {
  private readonly logger = new Logger('RecordsRead');

  constructor(
    private readonly connections: ConnectionsService,
    private readonly records: RecordsReadRepository,
  ) {}

  /** `{ records, next_cursor }`; without a limit every record, streamed, and no next cursor. */
  async list(environmentId: number, query: ListRecordsQuery): Promise<RecordsBody> {
    const connectionId = await this.connections.resolveId(
      environmentId,
      query.providerConfigKey,
      query.connectionId,
    );
    const selection = { ...query, connectionId };
    if (query.limit === undefined) {
      const statement = this.records.keysetStatement(selection);
      return this.streamed(statement, '{"records":[', '],"next_cursor":null}');
    }
    // One row more than asked tells whether another page exists.
    const rows = await this.records.records(
      this.records.keysetStatement({ ...selection, limit: query.limit + 1 }),
    );
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    const nextCursor = rows.length > query.limit && last !== undefined ? rowCursor(last) : null;
    return `{"records":[${page.map(recordJson).join(',')}],"next_cursor":${JSON.stringify(nextCursor)}}`;
  }

  /** A JSON array of records, OFFSET-paged; without a limit every record from the offset, streamed. */
  async legacy(environmentId: number, query: LegacyRecordsQuery): Promise<RecordsBody> {
    const connectionId = await this.connections.resolveId(
      environmentId,
      query.providerConfigKey,
      query.connectionId,
    );
    const statement = this.records.offsetStatement({ ...query, connectionId });
    if (query.limit === undefined) return this.streamed(statement, '[', ']');
    return `[${(await this.records.records(statement)).map(recordJson).join(',')}]`;
  }

  /**
   * The first batch is read before answering, so a failing query is still an error response;
   * after that a failure can only cut the body short, and is logged.
   */
  private async streamed(statement: Statement, prefix: string, suffix: string): Promise<Readable> {
    const batches = this.records.stream(statement);
    const first = await batches.next();
    const logger = this.logger;
    async function* body(): AsyncGenerator<string, void, undefined> {
      yield prefix;
      if (!first.done) {
        yield first.value;
        for await (const batch of batches) yield `,${batch}`;
      }
      yield suffix;
    }
    const readable = Readable.from(body(), { highWaterMark: STREAM_HIGH_WATER_MARK });
    // Also when the client leaves before the body started: the pooled client must go back.
    readable.once('close', () => {
      batches.return(undefined).catch((error: unknown) => {
        logger.warn({ err: error }, 'Closing a records stream failed');
      });
    });
    readable.once('error', (error) => {
      logger.error({ err: error }, 'A records stream failed after the response started');
    });
    return readable;
  }
}
