/**
 * Summarizes a V8 `.cpuprofile` (from `node --cpu-prof`, e.g. the service run with
 * BENCH_SERVICE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'): the top functions by self time
 * and by inclusive time, and the same per package, as shares of the non-idle time.
 *
 *   node dist/bench/cpu-profile-top.js <file.cpuprofile> [<from µs>..<to µs>] [--top N]
 *     [--match <regex>] [--callers <regex>]
 *
 * The window, in CLOCK_MONOTONIC µs (what `bench:connection` logs around each phase), keeps only
 * the samples taken within it: without it, start-up and setup are counted too.
 * `--match`: self and inclusive time of every function whose `name file:line` matches, and the
 * share of time with any of them on the stack.
 * `--callers`: for the time spent in functions matching (self), the nearest calling function
 * outside Node's internals and V8 natives, i.e. which code path reaches them.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fixed, printTable } from './common';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const SPECIAL = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

/** Which package a frame belongs to: an npm package, Node's internals, the service, or V8. */
function packageOf(frame: CallFrame): string {
  if (SPECIAL.has(frame.functionName)) return frame.functionName;
  const { url } = frame;
  if (url === '') return '(native: V8 builtins, bindings)';
  if (url.startsWith('node:')) return 'node: internals';
  const marker = '/node_modules/';
  const at = url.lastIndexOf(marker);
  if (at >= 0) {
    const parts = url.slice(at + marker.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? url);
  }
  if (url.includes('/dist/src/')) return 'junction (dist/src)';
  return url;
}

/** `name (package-relative path:line)`. */
function frameKey(frame: CallFrame): string {
  if (SPECIAL.has(frame.functionName) || frame.url === '')
    return frame.functionName || '(anonymous)';
  const { url } = frame;
  const marker = '/node_modules/';
  const at = url.lastIndexOf(marker);
  let where = url;
  if (at >= 0) where = url.slice(at + marker.length);
  else if (url.includes('/dist/')) where = url.slice(url.lastIndexOf('/dist/') + 1);
  else if (!url.startsWith('node:')) where = basename(url);
  return `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
}

const isInternal = (where: string): boolean =>
  where === 'node: internals' || where.startsWith('(native');

/** The package of the nearest frame, from the leaf up, that is not Node internals or a native. */
function chargedPackage(
  leaf: number,
  byId: ReadonlyMap<number, ProfileNode>,
  parent: ReadonlyMap<number, number>,
): string {
  for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(root)') continue;
    const where = packageOf(frame);
    if (!isInternal(where)) return where;
  }
  return '(Node internals, no package on the stack)';
}

function parseWindow(text: string | undefined): [number, number] | undefined {
  if (!text) return undefined;
  const match = /^(\d+)\.\.(\d+)$/.exec(text);
  if (!match) throw new Error(`window must be <from>..<to> in µs, got ${text}`);
  return [Number(match[1]), Number(match[2])];
}

function main(): void {
  const args = process.argv.slice(2);
  const option = (name: string): string | undefined => {
    const index = args.indexOf(name);
    return index >= 0 ? args.splice(index, 2)[1] : undefined;
  };
  const top = Number(option('--top') ?? 25);
  const matchText = option('--match');
  const callersText = option('--callers');
  const match = matchText === undefined ? undefined : new RegExp(matchText);
  const callersOf = callersText === undefined ? undefined : new RegExp(callersText);
  const [file, windowText] = args;
  if (!file) {
    process.stderr.write(
      'usage: node dist/bench/cpu-profile-top.js <file.cpuprofile> [<from µs>..<to µs>] [--top N]\n',
    );
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const window = parseWindow(windowText);

  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const packageSelf = new Map<string, number>();
  const packageInclusive = new Map<string, number>();
  /** Self time with Node internals and natives charged to the nearest package that called them. */
  const packageCharged = new Map<string, number>();
  /** Time with at least one function matching `--match` on the stack. */
  let matchedTotal = 0;
  const callers = new Map<string, number>();
  let callersTotal = 0;
  const add = (map: Map<string, number>, key: string, value: number): void => {
    map.set(key, (map.get(key) ?? 0) + value);
  };

  let time = profile.startTime;
  let total = 0;
  let idle = 0;
  let sampleCount = 0;
  for (let index = 0; index < profile.samples.length; index += 1) {
    time += profile.timeDeltas[index] ?? 0;
    if (window && (time < window[0] || time > window[1])) continue;
    // The time until the next sample is what this sample stands for (as DevTools counts it).
    const weight = profile.timeDeltas[index + 1] ?? 0;
    const node = byId.get(profile.samples[index] ?? -1);
    if (!node) continue;
    sampleCount += 1;
    total += weight;
    if (node.callFrame.functionName === '(idle)') {
      idle += weight;
      continue;
    }
    add(self, frameKey(node.callFrame), weight);
    add(packageSelf, packageOf(node.callFrame), weight);
    add(packageCharged, chargedPackage(node.id, byId, parent), weight);
    const seenFrames = new Set<string>();
    const seenPackages = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)?.callFrame;
      if (!frame || frame.functionName === '(root)') continue;
      seenFrames.add(frameKey(frame));
      seenPackages.add(packageOf(frame));
    }
    for (const key of seenFrames) add(inclusive, key, weight);
    if (match && [...seenFrames].some((key) => match.test(key))) matchedTotal += weight;
    if (callersOf?.test(frameKey(node.callFrame))) {
      callersTotal += weight;
      let caller = '(none outside Node internals)';
      for (let id = parent.get(node.id); id !== undefined; id = parent.get(id)) {
        const frame = byId.get(id)?.callFrame;
        if (!frame || frame.functionName === '(root)') continue;
        const where = packageOf(frame);
        if (isInternal(where)) continue;
        caller = frameKey(frame);
        break;
      }
      add(callers, caller, weight);
    }
    for (const key of seenPackages) add(packageInclusive, key, weight);
  }

  const busy = total - idle;
  const share = (value: number): string => `${fixed((100 * value) / busy, 1)} %`;
  const ms = (value: number): string => fixed(value / 1000, 0);
  const sorted = (map: Map<string, number>, count: number): Array<[string, number]> =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, count);

  process.stdout.write(
    `${file}\n${window ? `window ${window[0]}..${window[1]} µs, ` : 'whole profile, '}` +
      `${sampleCount} samples over ${ms(total)} ms, of which idle ${ms(idle)} ms, busy ${ms(busy)} ms (100 %)\n`,
  );
  process.stdout.write(
    '\nBy package, share of busy time (charged: self time plus the Node internals and natives it called):\n',
  );
  const packages = new Set([...packageInclusive.keys(), ...packageCharged.keys()]);
  printTable([
    ['package', 'self', 'charged', 'inclusive'],
    ...[...packages]
      .sort((a, b) => (packageCharged.get(b) ?? 0) - (packageCharged.get(a) ?? 0))
      .map((key) => [
        key,
        share(packageSelf.get(key) ?? 0),
        share(packageCharged.get(key) ?? 0),
        share(packageInclusive.get(key) ?? 0),
      ]),
  ]);
  process.stdout.write(`\nTop ${top} functions by self time:\n`);
  printTable([
    ['function (file:line)', 'self', 'ms'],
    ...sorted(self, top).map(([key, value]) => [key, share(value), ms(value)]),
  ]);
  process.stdout.write(`\nTop ${top} functions by inclusive time:\n`);
  printTable([
    ['function (file:line)', 'inclusive', 'ms'],
    ...sorted(inclusive, top).map(([key, value]) => [key, share(value), ms(value)]),
  ]);
  if (match) {
    process.stdout.write(
      `\nFunctions matching /${match.source}/ (any of them on the stack: ${share(matchedTotal)}):\n`,
    );
    printTable([
      ['function (file:line)', 'self', 'inclusive', 'inclusive ms'],
      ...[...inclusive.entries()]
        .filter(([key]) => match.test(key))
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([key, value]) => [key, share(self.get(key) ?? 0), share(value), ms(value)]),
    ]);
  }
  if (callersOf) {
    process.stdout.write(
      `\nNearest caller outside Node internals of the self time in /${callersOf.source}/ (${share(callersTotal)} of busy time):\n`,
    );
    printTable([
      ['caller (file:line)', 'share', 'ms'],
      ...sorted(callers, top).map(([key, value]) => [key, share(value), ms(value)]),
    ]);
  }
  const own = [...inclusive.entries()].filter(([key]) => key.includes(' dist/src/'));
  process.stdout.write(`\nThe service's own functions (dist/src) by inclusive time:\n`);
  printTable([
    ['function (file:line)', 'inclusive', 'ms'],
    ...own
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, value]) => [key, share(value), ms(value)]),
  ]);
}

main();
