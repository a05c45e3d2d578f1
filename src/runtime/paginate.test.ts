import type { ProxyConfig } from '../scripts/sdk';
import { linkTarget, paginate, readPath } from './paginate';
import type { ScriptProxyResponse } from './script-protocol';

type Page = { data: unknown; headers?: Record<string, string> };

/** A scripted API: answers by the request's endpoint and params, and records each request. */
function api(answer: (config: ProxyConfig) => Page) {
  const requests: ProxyConfig[] = [];
  const fetch = (config: ProxyConfig): Promise<ScriptProxyResponse> => {
    requests.push(config);
    const page = answer(config);
    return Promise.resolve({
      status: 200,
      headers: page.headers ?? {},
      data: page.data,
      url: `https://api.example.com/${config.endpoint.replace(/^\//, '')}`,
    });
  };
  return { fetch, requests };
}

async function collect<T>(pages: AsyncGenerator<T[]>): Promise<T[][]> {
  const all: T[][] = [];
  for await (const page of pages) all.push(page);
  return all;
}

describe('paginate', () => {
  it('follows a cursor in the body until it is empty', async () => {
    const { fetch, requests } = api((config) => {
      const cursor = (config.params as Record<string, string>).cursor;
      if (!cursor) return { data: { items: [1, 2], meta: { next: 'c2' } } };
      if (cursor === 'c2') return { data: { items: [3], meta: { next: '' } } };
      throw new Error('unexpected');
    });
    const seen: unknown[] = [];
    const pages = await collect(
      paginate<number>(fetch, {
        endpoint: '/things',
        paginate: {
          type: 'cursor',
          cursorPathInResponse: 'meta.next',
          cursorNameInRequest: 'cursor',
          responsePath: 'items',
          limit: 2,
          limitNameInRequest: 'limit',
        },
        onPage: ({ next }) => {
          seen.push(next);
        },
      }),
    );
    expect(pages).toEqual([[1, 2], [3]]);
    expect(requests.map((request) => request.params)).toEqual([
      { limit: 2 },
      { limit: 2, cursor: 'c2' },
    ]);
    expect(seen).toEqual(['c2', null]);
  });

  it('follows Link headers to absolute URLs', async () => {
    const { fetch, requests } = api((config) =>
      config.endpoint === '/issues'
        ? {
            data: ['a'],
            headers: {
              link: '<https://api.example.com/issues?page=2>; rel="next", <https://api.example.com/issues?page=9>; rel="last"',
            },
          }
        : { data: ['b'] },
    );
    const pages = await collect(
      paginate<string>(fetch, { endpoint: '/issues', paginate: { type: 'link' } }),
    );
    expect(pages).toEqual([['a'], ['b']]);
    expect(requests[1]?.endpoint).toBe('https://api.example.com/issues?page=2');
  });

  it('steps an offset until a short page', async () => {
    const data = [1, 2, 3, 4, 5];
    const { fetch, requests } = api((config) => {
      const params = config.params as Record<string, number>;
      return { data: data.slice(params.offset, (params.offset ?? 0) + (params.count ?? 0)) };
    });
    const pages = await collect(
      paginate<number>(fetch, {
        endpoint: '/n',
        paginate: {
          type: 'offset',
          offsetNameInRequest: 'offset',
          limit: 2,
          limitNameInRequest: 'count',
        },
      }),
    );
    expect(pages).toEqual([[1, 2], [3, 4], [5]]);
    expect(requests).toHaveLength(3);
  });

  it('refuses a page that repeats, and a body that is not a list', async () => {
    const looping = api(() => ({ data: { items: [1], next: 'same' } }));
    await expect(
      collect(
        paginate(looping.fetch, {
          endpoint: '/loop',
          paginate: {
            type: 'cursor',
            cursorPathInResponse: 'next',
            cursorNameInRequest: 'c',
            responsePath: 'items',
          },
        }),
      ),
    ).rejects.toThrow(/repeats an earlier one/);
    const notList = api(() => ({ data: { items: 'nope' } }));
    await expect(
      collect(
        paginate(notList.fetch, {
          endpoint: '/x',
          paginate: { type: 'link', responsePath: 'items' },
        }),
      ),
    ).rejects.toThrow(/"items" in the response is not an array/);
  });

  it('reads dotted paths and Link relations', () => {
    expect(readPath({ a: { b: [1] } }, 'a.b')).toEqual([1]);
    expect(readPath({ a: 1 }, 'a.b.c')).toBeUndefined();
    expect(linkTarget('<https://x/2>; rel="next"', 'next')).toBe('https://x/2');
    expect(linkTarget('<https://x/1>; rel="prev first"', 'first')).toBe('https://x/1');
    expect(linkTarget(undefined, 'next')).toBeUndefined();
  });
});
