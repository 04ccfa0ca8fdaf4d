// Preload (`node --require record.cjs`) for test/cli/lazy-loads.test.ts: appends the path of every
// module the process loads to the file named by MODULE_LOADS_FILE, one a line. CommonJS through
// Module._load (a require inside a package included), ES modules through a load hook
// (hooks.mjs, on the loader thread); an ES import of a CommonJS package passes the hook.
const { appendFileSync } = require('node:fs');
const Module = require('node:module');
const { pathToFileURL } = require('node:url');

const file = process.env.MODULE_LOADS_FILE;
if (file) {
  const load = Module._load;
  Module._load = function recorded(request, parent, isMain, ...rest) {
    try {
      appendFileSync(file, `${Module._resolveFilename(request, parent, isMain)}\n`);
    } catch {
      // a request that does not resolve fails in the real load below, as it would without this
    }
    return load.call(this, request, parent, isMain, ...rest);
  };
  Module.register(pathToFileURL(`${__dirname}/hooks.mjs`));
}
