/** The part of on-exit-leak-free (no bundled types) the logger uses. */
declare module 'on-exit-leak-free' {
  /** Calls `fn(object, event)` on the process's `exit`, unless `object` was collected first. */
  export function register<T extends object>(
    object: T,
    fn: (object: T, event: 'exit' | 'beforeExit') => void,
  ): void;
}
