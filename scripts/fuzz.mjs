#!/usr/bin/env node
// `npm run fuzz -- --count N [--grpc-count M] [--seed S]`: a longer run of the fuzz suite
// (test/fuzz/), through vitest so that it runs the same TypeScript as `npm test`. The seed is
// printed; the same seed replays the same inputs.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const count = option('count') ?? '20000';
const seed = option('seed') ?? String(Math.floor(Math.random() * 2 ** 31));
const env = { ...process.env, FUZZ_COUNT: count, FUZZ_SEED: seed, ...(option('grpc-count') ? { FUZZ_GRPC_COUNT: option('grpc-count') } : {}) };
console.log(`fuzz: ${count} HTTP inputs, seed ${seed}`);
const r = spawnSync('npx', ['vitest', 'run', 'test/fuzz/fuzz.test.ts'], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
