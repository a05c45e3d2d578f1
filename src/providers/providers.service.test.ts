import type { CustomProvidersRepository } from './custom-providers.repository';
import type { ProviderDefinition } from './provider.types';
import { ProviderCatalog } from './providers.catalog';
import { ProvidersService } from './providers.service';

/** A repository holding one custom provider, counting reads and answering when told to. */
function slowRepository() {
  const reads: Array<() => void> = [];
  const definition = { name: 'inhouse', auth_mode: 'API_KEY' } as ProviderDefinition;
  const repository = {
    listDefinitions: () =>
      new Promise<ProviderDefinition[]>((resolve) => reads.push(() => resolve([definition]))),
  } as unknown as CustomProvidersRepository;
  return { repository, reads, definition };
}

describe('ProvidersService', () => {
  it("reads an environment's custom providers once for all requests arriving meanwhile", async () => {
    const { repository, reads, definition } = slowRepository();
    const providers = new ProvidersService(new ProviderCatalog(), repository);

    const finds = Array.from({ length: 50 }, () => providers.find(1, 'inhouse'));
    expect(reads).toHaveLength(1);
    reads[0]!();
    for (const found of await Promise.all(finds)) expect(found).toBe(definition);

    // Then served from memory, without waiting.
    expect(providers.findCached(1, 'inhouse')).toBe(definition);
    expect(providers.findCached(1, 'github')).toMatchObject({ name: 'github' });
    expect(providers.findCached(1, 'no-such-provider')).toBeNull();
    expect(providers.findCached(2, 'inhouse')).toBeUndefined();
    expect(reads).toHaveLength(1);
  });
});
