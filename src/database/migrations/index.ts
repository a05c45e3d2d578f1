import { Initial1763770000000 } from './1763770000000-initial';
import { Connections1763780000000 } from './1763780000000-connections';
import { Syncs1763790000000 } from './1763790000000-syncs';
import { Webhooks1763800000000 } from './1763800000000-webhooks';
import { ChangeNotifications1763810000000 } from './1763810000000-change-notifications';
import { RecordsJsonText1763820000000 } from './1763820000000-records-json-text';

/** Every migration, in order. Listed explicitly so the same list works from source and from dist. */
export const MIGRATIONS = [
  Initial1763770000000,
  Connections1763780000000,
  Syncs1763790000000,
  Webhooks1763800000000,
  ChangeNotifications1763810000000,
  RecordsJsonText1763820000000,
];
