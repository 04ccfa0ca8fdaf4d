/**
 * Imports the ES module of an agent (`agents[].module`). Node 20 cannot run TypeScript, so `.ts`
 * modules go through tsx, taken from the agent's own project (it is the project's dependency, not
 * Agentport's). `fresh` evaluates the module again, for dev-mode reloads: a JavaScript module is
 * imported under a new `?v=N` URL; tsx imports each time in a namespace of its own, which also
 * re-evaluates the module's relative imports. Either way the old copies stay in memory until the
 * process ends (ES modules cannot be unloaded), which is why only `agentport dev` asks for it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const TYPESCRIPT = /\.[cm]?tsx?$/;

type TsImport = (specifier: string, parentURL: string) => Promise<Record<string, unknown>>;

let generation = 0;

export async function importAgentModule(file: string, opts: { fresh?: boolean } = {}): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  if (TYPESCRIPT.test(file)) {
    const tsImport = await findTsImport(file);
    if (tsImport) return tsImport(url, import.meta.url);
  }
  try {
    return (await import(opts.fresh ? `${url}?v=${++generation}` : url)) as Record<string, unknown>;
  } catch (error) {
    // Without tsx, TypeScript still loads when the process runs under a loader (tsx, a test runner).
    if ((error as NodeJS.ErrnoException).code === 'ERR_UNKNOWN_FILE_EXTENSION' && TYPESCRIPT.test(file)) throw new TypeScriptLoaderMissing(file);
    throw error;
  }
}

export class TypeScriptLoaderMissing extends Error {
  constructor(file: string) {
    super(`${file} is TypeScript, which Node.js 20 cannot run as is: add tsx to the agent's project (npm install --save-dev tsx), or point the module at compiled JavaScript`);
  }
}

/** tsx's `tsImport`, resolved from the agent's project first, then from Agentport's own. */
async function findTsImport(file: string): Promise<TsImport | undefined> {
  for (const from of [file, import.meta.url]) {
    const entry = tsxEsmApi(from);
    if (!entry) continue;
    const api = (await import(pathToFileURL(entry).href)) as { tsImport?: TsImport };
    if (typeof api.tsImport === 'function') return api.tsImport;
  }
  return undefined;
}

/**
 * The ES module build of `tsx/esm/api` as seen from `from`. require.resolve would pick the
 * CommonJS build, whose loader registration fails under Node 20 (it resolves its hooks file
 * relative to the wrong folder), so the `import` condition is read from tsx's package.json.
 */
function tsxEsmApi(from: string): string | undefined {
  let manifest: string;
  try {
    manifest = createRequire(from).resolve('tsx/package.json');
  } catch {
    return undefined;
  }
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, unknown> };
  const target = pkg.exports?.['./esm/api'] as { import?: string | { default?: string } } | undefined;
  const entry = typeof target?.import === 'string' ? target.import : target?.import?.default;
  return entry ? path.join(path.dirname(manifest), entry) : undefined;
}
