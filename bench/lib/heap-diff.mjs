// Compares two V8 heap snapshots (.heapsnapshot files) by constructor: what grew between them, in
// bytes (self size) and object count. Used by bench/soak.js and bench/streams.js analyses; run it
// alone as `node bench/lib/heap-diff.mjs before.heapsnapshot after.heapsnapshot [divisor]`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Self size and count per `type:name` of one snapshot. Strings and plain arrays are pooled by type. */
export function heapByConstructor(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const meta = snap.snapshot.meta;
  const width = meta.node_fields.length;
  const types = meta.node_types[0];
  const iType = meta.node_fields.indexOf('type');
  const iName = meta.node_fields.indexOf('name');
  const iSelf = meta.node_fields.indexOf('self_size');
  const out = new Map();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]];
    let name = snap.strings[snap.nodes[i + iName]];
    if (type.endsWith('string') || (type === 'array' && !name.startsWith('('))) name = '';
    const key = `${type}:${name.slice(0, 70)}`;
    const a = out.get(key) ?? { count: 0, bytes: 0 };
    a.count++;
    a.bytes += snap.nodes[i + iSelf];
    out.set(key, a);
  }
  return out;
}

/** The growth from `before` to `after`, largest first, each divided by `divisor` (per request, per stream). */
export function heapDiff(beforeFile, afterFile, divisor = 1, top = 30) {
  const a = heapByConstructor(beforeFile);
  const b = heapByConstructor(afterFile);
  let bytes = 0;
  let count = 0;
  const rows = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(key) ?? { count: 0, bytes: 0 };
    const y = b.get(key) ?? { count: 0, bytes: 0 };
    bytes += y.bytes - x.bytes;
    count += y.count - x.count;
    rows.push({ key, bytes: (y.bytes - x.bytes) / divisor, count: (y.count - x.count) / divisor });
  }
  rows.sort((p, q) => q.bytes - p.bytes);
  return { bytes: bytes / divisor, count: count / divisor, top: rows.slice(0, top) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [before, after, divisor = '1'] = process.argv.slice(2);
  const d = heapDiff(before, after, Number(divisor));
  process.stdout.write(`growth: ${d.bytes.toFixed(0)} bytes, ${d.count.toFixed(1)} objects (÷ ${divisor})\n`);
  for (const r of d.top) process.stdout.write(`${r.bytes.toFixed(0).padStart(10)} ${r.count.toFixed(2).padStart(9)}  ${r.key}\n`);
}
