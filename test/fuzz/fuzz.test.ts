/**
 * The fuzz suite's bounded slice in `npm test`: a few thousand mutated real requests over every
 * face (A2A JSON-RPC / HTTP+JSON at v1.0, v0.3 and v0.1, gRPC v1.0 and v0.3, MCP in both eras,
 * the compat routes, OAuth, /api/v1, the admin page, cards) against the CLI server as a child
 * process. No 5xx, errors in each face's shape, no internal text, the process stays up, RSS
 * bounded. `npm run fuzz -- --count N [--seed S]` runs a longer campaign (scripts/fuzz.mjs).
 */
import { describe, expect, it } from 'vitest';
import { describeFinding, runCampaign } from './campaign.js';

const COUNT = Number(process.env.FUZZ_COUNT ?? 3_000);
const GRPC_COUNT = Number(process.env.FUZZ_GRPC_COUNT ?? Math.round(COUNT / 5));
const SEED = Number(process.env.FUZZ_SEED ?? 19);
/** resident memory the campaign may add to the server */
const RSS_GROWTH_MIB = 256;

/** Two thirds of the inputs with authentication on (credentials mutated), a third with it off. */
const CAMPAIGNS = [
  { authMode: 'required' as const, share: 2 / 3 },
  { authMode: 'none' as const, share: 1 / 3 },
];

describe.each(CAMPAIGNS)('fuzz: every face, mutated real requests (auth.mode $authMode)', ({ authMode, share }) => {
  const httpInputs = Math.round(COUNT * share);
  const grpcInputs = Math.round(GRPC_COUNT * share);
  it(
    `${httpInputs} HTTP and ${grpcInputs} gRPC inputs (seed ${SEED}): no 5xx, spec-shaped errors, no internals, still up, RSS bounded`,
    async () => {
      const report = await runCampaign({ httpInputs, grpcInputs, seed: SEED, authMode, concurrency: Number(process.env.FUZZ_CONCURRENCY ?? 4) });
      const { findings, ...figures } = report;
      console.info(`fuzz figures: ${JSON.stringify({ ...figures, findings: findings.length })}`);
      for (const f of findings.slice(0, 25)) console.info(`fuzz finding: ${describeFinding(f)}`);
      expect(findings.map(describeFinding).slice(0, 25), `${findings.length} findings`).toEqual([]);
      expect(report.crashed).toBe(false);
      expect(report.rssPeakMiB - report.rssStartMiB).toBeLessThan(RSS_GROWTH_MIB);
    },
    15 * 60_000,
  );
});
