/**
 * ms 3 ships declarations, but its package.json "exports" names no "types", so TypeScript's
 * nodenext resolution does not find them. The part Junction uses:
 */
declare module 'ms' {
  /** Milliseconds of a duration such as `5m` or `2 days`; NaN when it is not one. */
  function ms(value: string): number;
  export default ms;
}
