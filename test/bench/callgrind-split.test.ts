import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { groupOf, readPerfMap, splitFile } from '../../bench/lib/callgrind-split.mjs';

const dir = mkdtempSync(path.join(os.tmpdir(), 'callgrind-split-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sum(map: Map<string, number>): number {
  let total = 0;
  for (const n of map.values()) total += n;
  return total;
}

describe('bench/lib/callgrind-split.mjs', () => {
  it('gives each instruction address its perf-map function, skips calls, follows relative positions', () => {
    const perfMap = path.join(dir, 'perf.map');
    // 0x1000-0x10ff the pg driver, 0x2000-0x20ff Agentport; the first 0x2000 entry is replaced
    writeFileSync(
      perfMap,
      [
        '1000 100 JS:*parse file:///x/node_modules/pg-protocol/dist/parser.js:10:5',
        '2000 80 JS:*old file:///x/node_modules/ioredis/built/Redis.js:1:1',
        '2000 100 JS:*commit file:///x/dist/store/group-commit.js:3:1',
        '',
      ].join('\n'),
    );
    const out = path.join(dir, 'cg.out');
    writeFileSync(
      out,
      [
        'positions: instr line',
        'events: Ir',
        'fn=(1) 0x0000000000001000',
        '0x1000 0 7', // pg: 7
        '+250 0 3', // decimal: 0x10fa, pg: 3 (read as hex it would leave the range)
        'cfn=(2) memcpy',
        'calls=1 0x9000',
        '+2 0 500', // 0x10fc: the call's inclusive cost, not counted
        '+2 0 2', // 0x10fe, pg: 2
        'fn=(3) 0x0000000000002000',
        '0x2040 0 11', // Agentport: 11
        '* 0 1', // same address: 1
        '-64 0 5', // 0x2000: 5
        'fn=(2)',
        '0x9000 0 40', // no JS range: memcpy, native
        'fn=(4) v8::internal::Heap::Scavenge()',
        '0xa000 0 9',
        'totals: 578',
        '',
      ].join('\n'),
    );
    const { groups, functions } = splitFile(out, readPerfMap(perfMap));
    expect(Object.fromEntries(groups)).toEqual({
      'pg driver': 12,
      'agentport (or the bare server)': 17,
      'native (V8 runtime, GC, libuv, OpenSSL, libc)': 49,
    });
    expect(functions.get('JS:*commit file:///x/dist/store/group-commit.js:3:1')).toBe(17);
    expect(functions.get('[native] memcpy')).toBe(40);
  });

  it('names the groups of the names V8 and callgrind write', () => {
    expect(groupOf('JS:*handle file:///a/node_modules/ioredis/built/DataHandler.js:1:1', true)).toBe('redis client');
    expect(groupOf('JS:*write node:net:900:10', true)).toBe('node core JS');
    expect(groupOf('Builtin:StringPrototypeIndexOf', true)).toBe('V8 builtins');
    expect(groupOf('JS:*x file:///a/node_modules/pino/lib/tools.js:1:1', true)).toBe('other packages');
  });

  it("accounts for every instruction of a real callgrind run's dump", () => {
    const out = path.join(dir, 'true.out');
    execFileSync('valgrind', ['--tool=callgrind', '--dump-instr=yes', `--callgrind-out-file=${out}`, '/bin/true'], { stdio: 'ignore' });
    const totals = Number(/^totals: (\d+)/m.exec(readFileSync(out, 'utf8'))![1]);
    const { groups } = splitFile(out, []);
    expect(totals).toBeGreaterThan(10_000);
    expect(sum(groups)).toBe(totals);
  });
});
