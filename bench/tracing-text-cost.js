#!/usr/bin/env node
// What shipping a packed part's strings costs the event loop, by way of building it, with nothing
// else: `node bench/tracing-text-cost.js MODE [PARTS]`, meant to be counted under
// `valgrind --tool=callgrind` against MODE none (docs/benchmarks.md, tracemain34). A part is 13
// requests of the blocking echo's five spans as the recorder writes them (names, trace/span/parent
// ids as slices of one random hex block, attribute keys, values: 42 strings a request, 753
// characters), and every mode ends with the text structured-cloned once, as `postMessage` does.
//   none     only the numbers (each string's length), no text
//   rope     every string appended to one string (what packed-spans-writer.ts does)
//   join     pushed to an array, joined once
//   latin1   written into a Buffer with latin1Write, one call a string
//   ucs2     the same with ucs2Write (any UTF-16 string kept)
//   vals     only the attribute values in the text (10 a request), every length written
//   idrefs   rope but for the ids: a number each (as if the span held its id block and offset)
//   refs     vals, ids as a number each (as if the span held its id block), names and keys as
//            the index of a 256-slot table hashed by length and two characters (defined on a miss)
import { randomFillSync } from 'node:crypto';

const mode = process.argv[2] ?? 'rope';
const parts = Number(process.argv[3] ?? 3000);
const keys = [
  'http.request.method',
  'url.path',
  'http.response.status_code',
  'agentport.request_id',
  'agentport.binding',
  'rpc.method',
  'agentport.agent',
  'agentport.task.id',
  'agentport.context.id',
  'agentport.surface',
];
const names = ['SendMessage', 'authenticate', 'core SendMessage', 'invoke_agent echo', 'store.commit'];
const block = Buffer.alloc(4096);
let hex = '';
let at = 0;
function take(n) {
  if (at + n > hex.length) {
    randomFillSync(block);
    hex = block.toString('hex');
    at = 0;
  }
  return hex.slice(at, (at += n));
}
const uuid = () => `${take(8)}-${take(4)}-${take(4)}-${take(4)}-${take(12)}`;

/** One part's strings in the order written, and each one's kind: 0 value, 1 key or name, 2 id. */
function part() {
  const out = [];
  for (let r = 0; r < 13; r++) {
    const t = take(32);
    const root = take(16);
    const task = uuid();
    out.push(names[0], t, root, keys[0], 'POST', keys[1], '/a2a', keys[2], keys[3], uuid(), keys[4], 'jsonrpc', keys[5], 'SendMessage', keys[6], 'echo', keys[7], task, keys[8], uuid());
    for (let s = 1; s < 5; s++) {
      out.push(names[s], t, take(16), root);
      if (s === 2) out.push(keys[6], 'echo', keys[9], 'a2a');
      if (s === 3) out.push(keys[7], task);
    }
  }
  const kinds = out.map((s) => (keys.includes(s) || names.includes(s) ? 1 : /^[0-9a-f]{16}$|^[0-9a-f]{32}$/.test(s) ? 2 : 0));
  return { out, kinds };
}
const sets = Array.from({ length: 64 }, part);
const nums = new Float64Array(1 << 16);
const table = new Array(256).fill('');
const buf = Buffer.allocUnsafeSlow(1 << 16);
let sink = 0;

const MODES = {
  none(p) {
    let n = 0;
    for (let j = 0; j < p.length; j++) nums[n++] = p[j].length;
    sink += n;
    return '';
  },
  rope(p) {
    let text = '';
    let n = 0;
    for (let j = 0; j < p.length; j++) {
      const s = p[j];
      nums[n++] = s.length;
      if (s.length !== 0) text += s;
    }
    return text;
  },
  join(p) {
    const a = [];
    let n = 0;
    for (let j = 0; j < p.length; j++) {
      const s = p[j];
      nums[n++] = s.length;
      if (s.length !== 0) a.push(s);
    }
    return a.join('');
  },
  latin1(p) {
    let off = 0;
    let n = 0;
    for (let j = 0; j < p.length; j++) {
      const s = p[j];
      nums[n++] = s.length;
      if (s.length !== 0) off += buf.latin1Write(s, off);
    }
    sink += off;
    return '';
  },
  ucs2(p) {
    let off = 0;
    let n = 0;
    for (let j = 0; j < p.length; j++) {
      const s = p[j];
      nums[n++] = s.length;
      if (s.length !== 0) off += buf.ucs2Write(s, off);
    }
    sink += off;
    return '';
  },
  vals(p, kinds) {
    let text = '';
    let n = 0;
    for (let j = 0; j < p.length; j++) {
      const s = p[j];
      nums[n++] = s.length;
      if (kinds[j] === 0 && s.length !== 0) text += s;
    }
    return text;
  },
  idrefs(p, kinds) {
    let text = '';
    let n = 0;
    for (let j = 0; j < p.length; j++) {
      const s = p[j];
      if (kinds[j] === 2) nums[n++] = -1 - j;
      else {
        nums[n++] = s.length;
        if (s.length !== 0) text += s;
      }
    }
    return text;
  },
  refs(p, kinds) {
    let text = '';
    let n = 0;
    for (let j = 0; j < p.length; j++) {
      const s = p[j];
      const k = kinds[j];
      if (k === 2) nums[n++] = -1 - j;
      else if (k === 1) {
        const slot = (s.length * 31 + s.charCodeAt(s.length - 1) * 7 + s.charCodeAt(s.length >> 1)) & 255;
        if (table[slot] === s) nums[n++] = -1 - slot;
        else {
          table[slot] = s;
          nums[n++] = s.length;
          text += s;
        }
      } else {
        nums[n++] = s.length;
        if (s.length !== 0) text += s;
      }
    }
    return text;
  },
};
const f = MODES[mode];
if (!f) {
  console.error(`modes: ${Object.keys(MODES).join(', ')}`);
  process.exit(2);
}
for (let i = 0; i < parts; i++) {
  const { out, kinds } = sets[i & 63];
  const text = f(out, kinds);
  sink += structuredClone(text).length;
}
console.log(mode, parts, 'parts of 13 requests,', sets[0].out.length / 13, 'strings a request', sink > 0);
