// The load hook of record.cjs: runs on the loader thread, so it appends to the file itself.
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) appendFileSync(process.env.MODULE_LOADS_FILE, `${fileURLToPath(url)}\n`);
  return nextLoad(url, context);
}
