import type { EnvironmentsRepository } from '../environments/environments.repository';
import { authenticateCached } from './auth.guard';
import { SecretKeyResolver } from './secret-key-resolver';

/** A repository that knows one key hash's environment and answers when told to. */
function slowEnvironments() {
  const lookups: Array<() => void> = [];
  const environments = {
    findIdByKeyHash: () =>
      new Promise<{ id: number; name: string }>((resolve) =>
        lookups.push(() => resolve({ id: 7, name: 'prod' })),
      ),
  } as unknown as EnvironmentsRepository;
  return { environments, lookups };
}

describe('SecretKeyResolver', () => {
  it('looks a key up once for all requests arriving meanwhile, then answers from memory', async () => {
    const { environments, lookups } = slowEnvironments();
    const resolver = new SecretKeyResolver(environments);

    expect(authenticateCached('Bearer jct_prod_key', resolver)).toBeUndefined();
    const resolves = Array.from({ length: 50 }, () => resolver.resolve('jct_prod_key'));
    expect(lookups).toHaveLength(1);
    lookups[0]!();
    for (const environment of await Promise.all(resolves))
      expect(environment).toEqual({ id: 7, name: 'prod' });

    expect(authenticateCached('Bearer jct_prod_key', resolver)).toEqual({ id: 7, name: 'prod' });
    expect(() => authenticateCached('Basic abc', resolver)).toThrow('Bearer');
    expect(lookups).toHaveLength(1);
  });
});
