/** Failure types of a run that a retry cannot fix: the script threw, hung, ran out of memory or did not load. */
export const SCRIPT_FAILURE_TYPES = [
  'script_error',
  'script_timeout',
  'script_memory',
  'script_load',
];
