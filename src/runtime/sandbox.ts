import { createRequire } from 'node:module';
import vm from 'node:vm';

/** Node built-ins a script may import; everything else (fs, child_process, net, …) is refused. */
const ALLOWED_MODULES = new Set([
  'buffer',
  'crypto',
  'events',
  'querystring',
  'string_decoder',
  'url',
  'util',
]);

const nodeRequire = createRequire(__filename);

function scriptRequire(name: string): unknown {
  const bare = name.startsWith('node:') ? name.slice(5) : name;
  if (!ALLOWED_MODULES.has(bare)) {
    throw new Error(
      `Scripts cannot import "${name}"; bundle your dependencies, and use the context for HTTP (allowed built-ins: ${[...ALLOWED_MODULES].join(', ')})`,
    );
  }
  return nodeRequire(`node:${bare}`);
}

/**
 * Evaluates a CommonJS bundle in a fresh V8 context that has the language, timers and web
 * basics but none of the host's globals (`process`, `require`, the worker's modules), and
 * returns its default export.
 */
export function evaluateBundle(
  bundle: string,
  filename: string,
  log: (text: string) => void,
): unknown {
  return runCompiled(compileBundle(bundle, filename), filename, log);
}

/**
 * Compiles a bundle once, to run in any number of fresh contexts (`runCompiled`): V8 shares the
 * compiled code between contexts, so a run pays for the module's top level, not for parsing and
 * compiling a bundle of a megabyte or more again.
 */
export function compileBundle(bundle: string, filename: string): vm.Script {
  return new vm.Script(`(function (exports, require, module) {${bundle}\n})`, { filename });
}

/** Runs a compiled bundle in a fresh context (see `evaluateBundle`); its default export. */
export function runCompiled(
  script: vm.Script,
  filename: string,
  log: (text: string) => void,
): unknown {
  const write = (...parts: unknown[]) =>
    log(parts.map((part) => (typeof part === 'string' ? part : safeInspect(part))).join(' '));
  const sandbox = {
    console: { log: write, info: write, warn: write, error: write, debug: write },
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
    crypto: globalThis.crypto,
    process: { env: {} },
  };
  const context = vm.createContext(sandbox, {
    name: filename,
    codeGeneration: { strings: false, wasm: false },
  });
  const wrapper = script.runInContext(context) as (
    exports: object,
    require: (name: string) => unknown,
    module: { exports: object },
  ) => void;
  const module = { exports: {} as Record<string, unknown> };
  wrapper(module.exports, scriptRequire, module);
  return module.exports.default ?? module.exports;
}

function safeInspect(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
