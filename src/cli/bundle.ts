import { build, type Message, type Plugin } from 'esbuild';
import { createRequire, isBuiltin } from 'node:module';
import { basename, dirname, join, sep } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import type { ScriptDefinitionJson } from '../scripts/script.types';
import { describeDefinition, isScriptDefinition, type ZodModule } from './definition-json';

/** The SDK next to this file (`.ts` under Jest, `.js` once built): `junction/scripts` maps to it. */
const SDK_ENTRY = require.resolve('../scripts/sdk/index');

/** Where this package finds zod: scripts in a folder without node_modules still resolve it. */
const PACKAGE_NODE_MODULES = (() => {
  const zod = require.resolve('zod');
  const index = zod.lastIndexOf(`${sep}node_modules${sep}`);
  return index < 0 ? [] : [zod.slice(0, index + '/node_modules'.length)];
})();

/**
 * The bundle also exports the SDK's zod under this name, so JSON Schemas are made by the same
 * zod that built the schemas (its registry holds their descriptions).
 */
const ZOD_EXPORT = '__junctionZod';

/** Longest a script's top level may run while its definition is read. */
const LOAD_TIMEOUT_MS = 5_000;

const nodeRequire = createRequire(__filename);

const sdkAlias: Plugin = {
  name: 'junction-sdk',
  setup(builder) {
    builder.onResolve({ filter: /^junction\/scripts$/ }, () => ({ path: SDK_ENTRY }));
  },
};

/** A script file bundled and its definition read. */
export type BuiltScript =
  | { readonly status: 'ok'; readonly bundle: string; readonly definition: ScriptDefinitionJson }
  /** The file does not default-export a createSync/createAction result (a helper module). */
  | { readonly status: 'skipped'; readonly reason: string }
  | { readonly status: 'invalid'; readonly problems: readonly string[] };

/** A script file that did not bundle or whose definition is invalid; `problems` lists every one. */
export class ScriptBundleError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ScriptBundleError';
  }
}

/** Bundles one script file and validates its definition; throws `ScriptBundleError` otherwise. */
export async function bundleScript(
  file: string,
): Promise<{ bundle: string; definition: ScriptDefinitionJson }> {
  const built = await buildScript(file);
  if (built.status === 'ok') return built;
  throw new ScriptBundleError(file, built.status === 'invalid' ? built.problems : [built.reason]);
}

/**
 * Bundles a script file with everything it imports (zod and the SDK included, Node built-ins
 * left to `require`) into CommonJS, reads its default export in a sandbox, and turns it into the
 * definition JSON the service stores.
 */
export async function buildScript(file: string): Promise<BuiltScript> {
  const bundled = await bundleFile(file);
  if ('problems' in bundled) return { status: 'invalid', problems: bundled.problems };
  let exports: Record<string, unknown>;
  try {
    exports = loadBundle(bundled.bundle, basename(file));
  } catch (error) {
    return { status: 'invalid', problems: [`loading the script failed: ${errorText(error)}`] };
  }
  const raw = exports.default;
  if (!isScriptDefinition(raw)) {
    return {
      status: 'skipped',
      reason: 'no default export made by createSync or createAction',
    };
  }
  const described = describeDefinition(raw, exports[ZOD_EXPORT] as ZodModule | undefined);
  if (described.problems.length > 0 || !described.definition) {
    return { status: 'invalid', problems: described.problems };
  }
  return { status: 'ok', bundle: bundled.bundle, definition: described.definition };
}

async function bundleFile(file: string): Promise<{ bundle: string } | { problems: string[] }> {
  try {
    const result = await build({
      stdin: {
        contents: [
          `import * as script from ${JSON.stringify(file)};`,
          'export default script.default;',
          `export { z as ${ZOD_EXPORT} } from ${JSON.stringify(SDK_ENTRY)};`,
        ].join('\n'),
        resolveDir: dirname(file),
        sourcefile: `${basename(file)} (entry)`,
        loader: 'ts',
      },
      // Locations in messages are then relative to the script's folder.
      absWorkingDir: dirname(file),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      nodePaths: PACKAGE_NODE_MODULES,
      plugins: [sdkAlias],
    });
    const output = result.outputFiles[0];
    if (!output) return { problems: ['esbuild produced no output'] };
    return { bundle: output.text };
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    if (!Array.isArray(errors)) return { problems: [`bundling failed: ${errorText(error)}`] };
    return { problems: errors.map(formatBuildMessage) };
  }
}

function formatBuildMessage(message: Message): string {
  const location = message.location;
  if (!location) return message.text;
  return `${location.file}:${location.line}:${location.column + 1}: ${message.text}`;
}

/**
 * Runs a CommonJS bundle in a fresh V8 context and returns its `module.exports`. The script sees
 * the usual timers and web globals and may `require` Node built-ins only (everything else is in
 * the bundle). A top level that runs longer than a few seconds is stopped.
 */
export function loadBundle(bundle: string, filename = 'script.js'): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  const context = createContext({
    module,
    exports: module.exports,
    require: requireBuiltin,
    __filename: join(sep, 'scripts', filename),
    __dirname: join(sep, 'scripts'),
    console,
    setTimeout,
    clearTimeout,
    setInterval,
    clearInterval,
    setImmediate,
    clearImmediate,
    queueMicrotask,
    structuredClone,
    URL,
    URLSearchParams,
    TextEncoder,
    TextDecoder,
    AbortController,
    AbortSignal,
    Buffer,
    atob,
    btoa,
  });
  runInContext(bundle, context, { filename, timeout: LOAD_TIMEOUT_MS });
  return module.exports;
}

/** The definition a bundle default-exports (the createSync/createAction result, with `exec`). */
export function loadDefinition(bundle: string, filename?: string): unknown {
  return loadBundle(bundle, filename).default;
}

function requireBuiltin(id: string): unknown {
  if (!isBuiltin(id)) {
    throw new Error(`Cannot require "${id}": scripts may require Node built-ins only`);
  }
  return nodeRequire(id);
}

/** Errors thrown inside the sandbox come from another realm: `instanceof Error` is false there. */
function errorText(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error) {
    return String(error.message);
  }
  return String(error);
}
