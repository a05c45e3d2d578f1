import { GetConnectionQueryDto } from '../../connections/dto/connection-queries.dto';
import { InvalidRequestError } from '../errors/domain-error';
import { createValidationPipe } from './validation.pipe';

describe('the validation pipe', () => {
  const query = { type: 'query' as const, metatype: GetConnectionQueryDto, data: undefined };

  it('answers a query seen before with an equal, separate instance of the DTO', async () => {
    const pipe = createValidationPipe();
    const first: unknown = await pipe.transform({ provider_config_key: 'gh' }, query);
    const second: unknown = await pipe.transform({ provider_config_key: 'gh' }, query);
    expect(first).toBeInstanceOf(GetConnectionQueryDto);
    expect(second).toBeInstanceOf(GetConnectionQueryDto);
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
  });

  it('still refuses an invalid query, also one that differs from a remembered valid one', async () => {
    const pipe = createValidationPipe();
    await pipe.transform({ provider_config_key: 'gh', force_refresh: 'true' }, query);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await expect(
        pipe.transform({ provider_config_key: 'gh', force_refresh: 'yes' }, query),
      ).rejects.toBeInstanceOf(InvalidRequestError);
      await expect(
        pipe.transform({ provider_config_key: 'gh', unknown: 'x' }, query),
      ).rejects.toBeInstanceOf(InvalidRequestError);
    }
  });
});
