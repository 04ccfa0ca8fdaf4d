/** The parts of a message built from the command line: text, files (--file) and JSON data (--data). */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { JsonValue, Part } from '../../protocol/a2a/types.js';
import { UsageError } from './connection.js';

const MEDIA_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.parquet': 'application/vnd.apache.parquet',
};

export async function fileParts(files: string[], cwd: string): Promise<Part[]> {
  const out: Part[] = [];
  for (const f of files) {
    const full = path.resolve(cwd, f);
    let bytes: Buffer;
    try {
      bytes = await readFile(full);
    } catch (err) {
      throw new UsageError(`--file ${f}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
    out.push({ raw: bytes.toString('base64'), filename: path.basename(full), mediaType: MEDIA_TYPES[path.extname(full).toLowerCase()] ?? 'application/octet-stream' });
  }
  return out;
}

export function dataPart(json: string): Part {
  try {
    return { data: JSON.parse(json) as JsonValue, mediaType: 'application/json' };
  } catch (err) {
    throw new UsageError(`--data is not valid JSON: ${(err as Error).message}`);
  }
}
