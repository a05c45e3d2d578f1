import { ChangeFeed } from '../database/change-feed';
import { ConnectionCache, type CachedConnection } from './connection-cache';
import type { ConnectionRow } from './connections.repository';

function cached(id: number, integrationId: number, token: string): CachedConnection {
  const row = { id, environmentId: 1, integrationId, connectionId: `c${id}` } as ConnectionRow;
  return { row, credentials: { type: 'OAUTH2', access_token: token, raw: {} } as never };
}

describe('ConnectionCache', () => {
  // The embedded feed is live from the start and carries only what is announced to it.
  const liveFeed = (): ChangeFeed => new ChangeFeed({ embedded: true });

  it('serves what it remembered, per environment, integration key and connection id', () => {
    const cache = new ConnectionCache(liveFeed(), 10);
    cache.remember('gh', 'c1', cached(1, 7, 'a'), cache.generation);
    expect(cache.get(1, 'gh', 'c1')?.credentials).toMatchObject({ access_token: 'a' });
    expect(cache.get(1, 'other', 'c1')).toBeUndefined();
    expect(cache.get(2, 'gh', 'c1')).toBeUndefined();
  });

  it('drops a connection when it changes, and every connection of an integration that changes', () => {
    const feed = liveFeed();
    const cache = new ConnectionCache(feed, 10);
    cache.remember('gh', 'c1', cached(1, 7, 'a'), cache.generation);
    cache.remember('gh', 'c2', cached(2, 7, 'b'), cache.generation);
    cache.remember('sl', 'c3', cached(3, 8, 'c'), cache.generation);
    feed.announce('connection', 1);
    expect(cache.get(1, 'gh', 'c1')).toBeUndefined();
    expect(cache.get(1, 'gh', 'c2')).toBeDefined();
    feed.announce('integration', 7);
    expect(cache.get(1, 'gh', 'c2')).toBeUndefined();
    expect(cache.get(1, 'sl', 'c3')).toBeDefined();
  });

  it('does not keep a row read before a change that arrived while the read was under way', () => {
    const feed = liveFeed();
    const cache = new ConnectionCache(feed, 10);
    const generation = cache.generation; // taken before the read
    feed.announce('connection', 99); // any change meanwhile, even of another row
    cache.remember('gh', 'c1', cached(1, 7, 'old'), generation);
    expect(cache.get(1, 'gh', 'c1')).toBeUndefined();
  });

  it('serves nothing while the feed is not live, and nothing at size 0', () => {
    const notListening = new ChangeFeed({ listen: 'postgres://127.0.0.1:1/none' });
    const offline = new ConnectionCache(notListening, 10);
    offline.remember('gh', 'c1', cached(1, 7, 'a'), offline.generation);
    expect(offline.get(1, 'gh', 'c1')).toBeUndefined();

    const disabled = new ConnectionCache(liveFeed(), 0);
    disabled.remember('gh', 'c1', cached(1, 7, 'a'), disabled.generation);
    expect(disabled.get(1, 'gh', 'c1')).toBeUndefined();
  });

  it('keeps at most its size, dropping the least recently used', () => {
    const cache = new ConnectionCache(liveFeed(), 2);
    cache.remember('gh', 'c1', cached(1, 7, 'a'), cache.generation);
    cache.remember('gh', 'c2', cached(2, 7, 'b'), cache.generation);
    cache.get(1, 'gh', 'c1');
    cache.remember('gh', 'c3', cached(3, 7, 'c'), cache.generation);
    expect(cache.size).toBe(2);
    expect(cache.get(1, 'gh', 'c2')).toBeUndefined();
    expect(cache.get(1, 'gh', 'c1')).toBeDefined();
  });
});
