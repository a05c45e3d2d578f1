import { DomainError } from '../common/errors/domain-error';
import { decodeCursor, encodeCursor } from './record-cursor';
import { recordJson, type RecordRow } from './record-json';
import { MAX_RECORDS_LIMIT, parseLegacyRecordsQuery, parseListRecordsQuery } from './records-query';

const HEADERS = { 'connection-id': 'u1', 'provider-config-key': 'crm' };

function problems(run: () => unknown): { code: string; paths: string[] } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { code: error.code, paths: (error.errors ?? []).map((item) => item.path).sort() };
  }
  throw new Error('Expected a DomainError');
}

describe('record cursors', () => {
  it('round-trips a position at microsecond precision', () => {
    const position = { lastModifiedAt: '2024-05-01T12:00:00.123456Z', id: '9223372036854775807' };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
  });

  it('refuses anything it did not write', () => {
    const encoded = (text: string): string => Buffer.from(text).toString('base64url');
    for (const cursor of [
      'garbage!',
      encoded('2024-05-01T12:00:00.123Z|1'), // milliseconds only
      encoded('2024-02-30T12:00:00.000000Z|1'),
      encoded('2024-05-01T24:00:00.000000Z|1'),
      encoded('2024-05-01T12:00:00.000000Z|0'),
      encoded('2024-05-01T12:00:00.000000Z|9223372036854775808'),
      encoded('2024-05-01T12:00:00.000000Z|12|x'),
    ])
      expect(decodeCursor(cursor)).toBeUndefined();
  });
});

describe('listRecords query', () => {
  it('reads every parameter', () => {
    expect(
      parseListRecordsQuery(HEADERS, {
        model: 'Contact',
        delta: '2024-05-01T12:00:00.1234567+02:00',
        limit: '50',
        filter: 'added, UPDATED,added',
      }),
    ).toEqual({
      connectionId: 'u1',
      providerConfigKey: 'crm',
      model: 'Contact',
      modifiedAfter: '2024-05-01T12:00:00.1234567+02:00',
      limit: 50,
      actions: ['ADDED', 'UPDATED'],
      after: undefined,
    });
  });

  it('normalizes timestamps without a zone to UTC and reads an unencoded + back', () => {
    const parse = (modified_after: string) =>
      parseListRecordsQuery(HEADERS, { model: 'm', modified_after }).modifiedAfter;
    expect(parse('2024-05-01')).toBe('2024-05-01T00:00:00Z');
    expect(parse('2024-05-01T08:30')).toBe('2024-05-01T08:30:00Z');
    expect(parse('2024-05-01T08:30:00 02:00')).toBe('2024-05-01T08:30:00+02:00');
    expect(parse('2024-02-29T00:00:00z')).toBe('2024-02-29T00:00:00Z');
  });

  it('names every bad parameter, headers included, in one error', () => {
    expect(
      problems(() =>
        parseListRecordsQuery(
          {},
          { limit: '0', filter: 'new', modified_after: '2023-02-29', cursor: 'x' },
        ),
      ),
    ).toEqual({
      code: 'invalid_request',
      paths: [
        'Connection-Id',
        'Provider-Config-Key',
        'cursor',
        'filter',
        'limit',
        'model',
        'modified_after',
      ],
    });
    expect(problems(() => parseListRecordsQuery(HEADERS, { model: 'm', cursor: 'x' }))).toEqual({
      code: 'invalid_cursor',
      paths: ['cursor'],
    });
    expect(
      problems(() =>
        parseListRecordsQuery(HEADERS, { model: 'm', limit: String(MAX_RECORDS_LIMIT + 1) }),
      ).paths,
    ).toEqual(['limit']);
    expect(
      problems(() => parseListRecordsQuery(HEADERS, { model: 'a b', delta: 'now' })).paths,
    ).toEqual(['delta', 'model']);
    expect(
      problems(() =>
        parseListRecordsQuery(HEADERS, {
          model: 'm',
          delta: '2024-01-01',
          modified_after: '2024-01-01',
        }),
      ).paths,
    ).toEqual(['delta']);
  });

  it('reads the deprecated getRecords parameters', () => {
    expect(parseLegacyRecordsQuery(HEADERS, { model: 'm' })).toMatchObject({
      sortBy: 'id',
      order: 'asc',
      offset: 0,
      limit: undefined,
    });
    expect(
      problems(() =>
        parseLegacyRecordsQuery(HEADERS, { model: 'm', order: 'up', sort_by: 'x', offset: '-1' }),
      ).paths,
    ).toEqual(['offset', 'order', 'sort_by']);
  });
});

describe('record JSON', () => {
  const row = (body: string, deletedAt: string | null = null): RecordRow => [
    body,
    deletedAt,
    deletedAt ? 'DELETED' : 'ADDED',
    '2024-05-01T12:00:00.000001Z',
    '2024-05-02T12:00:00.000002Z',
    '42',
  ];

  it('appends _service_metadata to the stored text', () => {
    const parsed = JSON.parse(recordJson(row('{"id": "a", "n": {"x": 1}}'))) as Record<
      string,
      unknown
    >;
    expect(parsed).toEqual({
      id: 'a',
      n: { x: 1 },
      _service_metadata: {
        deleted_at: null,
        last_action: 'ADDED',
        first_seen_at: '2024-05-01T12:00:00.000001Z',
        last_modified_at: '2024-05-02T12:00:00.000002Z',
        cursor: encodeCursor({ lastModifiedAt: '2024-05-02T12:00:00.000002Z', id: '42' }),
      },
    });
  });

  it("replaces a record's own top-level _service_metadata with ours, keeping nested ones", () => {
    const parsed = JSON.parse(
      recordJson(row('{"id":"b","_service_metadata":"theirs","n":{"_service_metadata":1}}')),
    ) as { id: string; n: unknown; _service_metadata: { last_action: string } };
    expect(parsed.id).toBe('b');
    expect(parsed.n).toEqual({ _service_metadata: 1 });
    expect(parsed._service_metadata.last_action).toBe('ADDED');
  });

  it('handles an empty record and a deleted one', () => {
    expect(JSON.parse(recordJson(row('{}', '2024-05-03T00:00:00.000000Z')))).toMatchObject({
      _service_metadata: { deleted_at: '2024-05-03T00:00:00.000000Z', last_action: 'DELETED' },
    });
  });
});
