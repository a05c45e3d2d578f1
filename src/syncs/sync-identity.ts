import {
  defineSearchAttributeKey,
  SearchAttributeType,
  TypedSearchAttributes,
} from '@temporalio/common';
import { DomainError } from '../common/errors/domain-error';
import { SEARCH_ATTRIBUTES } from '../temporal/search-attributes';

export class SyncNotFoundError extends DomainError {
  constructor(providerConfigKey: string, names: readonly string[]) {
    super(
      'sync_not_found',
      `No sync ${names.map((name) => `"${name}"`).join(', ')} deployed for integration "${providerConfigKey}"`,
    );
  }
}

const KEYS = {
  environment: defineSearchAttributeKey(SEARCH_ATTRIBUTES.environment, SearchAttributeType.KEYWORD),
  integration: defineSearchAttributeKey(SEARCH_ATTRIBUTES.integration, SearchAttributeType.KEYWORD),
  connection: defineSearchAttributeKey(SEARCH_ATTRIBUTES.connection, SearchAttributeType.KEYWORD),
  sync: defineSearchAttributeKey(SEARCH_ATTRIBUTES.sync, SearchAttributeType.KEYWORD),
  action: defineSearchAttributeKey(SEARCH_ATTRIBUTES.action, SearchAttributeType.KEYWORD),
};

/** The search attributes that let an operator find a connection's runs in the Temporal UI. */
export function runSearchAttributes(values: {
  environment: string;
  integration: string;
  connection: string;
  sync: string;
}): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: KEYS.environment, value: values.environment },
    { key: KEYS.integration, value: values.integration },
    { key: KEYS.connection, value: values.connection },
    { key: KEYS.sync, value: values.sync },
  ]);
}

/** The search attributes of an action run. */
export function actionSearchAttributes(values: {
  environment: string;
  integration: string;
  connection: string;
  action: string;
}): TypedSearchAttributes {
  return new TypedSearchAttributes([
    { key: KEYS.environment, value: values.environment },
    { key: KEYS.integration, value: values.integration },
    { key: KEYS.connection, value: values.connection },
    { key: KEYS.action, value: values.action },
  ]);
}
