/**
 * `agentport send` and `tasks get` show answers for a person: markdown rendered, rows as an
 * aligned table with a count of the rest, a chart as one line, parts apart; `--raw` prints the
 * parts as sent and `--json` the protocol objects. Pinned on the renderer and on a real Table
 * Expert answer over A2A.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { partsForTerminal } from '../../src/cli/a2a/terminal-parts.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { fakeIO } from './fake-io.js';

const plain = { color: false };

describe('partsForTerminal', () => {
  it('renders markdown: headings, lists, code blocks, bold and inline code lose their markers', () => {
    const md = '# Revenue\n\nThe **top** product is `Pro Monitor`.\n\n- one\n- two\n\n```sql\nSELECT 1\n```';
    expect(partsForTerminal([{ text: md, mediaType: 'text/markdown' }], plain)).toBe(['Revenue', '═══════', '', 'The top product is Pro Monitor.', '', '  • one', '  • two', '', '    SELECT 1'].join('\n'));
  });

  it('in a colour terminal, bold is an escape sequence, not asterisks', () => {
    expect(partsForTerminal([{ text: 'a **b** c', mediaType: 'text/markdown' }], { color: true })).toBe('a \u001b[1mb\u001b[22m c');
  });

  it('a markdown table becomes aligned columns', () => {
    const md = '| name | n |\n|---|---:|\n| a | 1 |\n| long name | 22 |';
    expect(partsForTerminal([{ text: md, mediaType: 'text/markdown' }], plain)).toBe(['name        n', '─────────  ──', 'a           1', 'long name  22'].join('\n'));
  });

  it('a DataPart of rows is an aligned table of the first rows and a count of the rest', () => {
    const rows = Array.from({ length: 30 }, (_, i) => [`p${i}`, i * 10]);
    const out = partsForTerminal(
      [
        {
          data: {
            columns: [
              { name: 'product', type: 'VARCHAR' },
              { name: 'total', type: 'BIGINT' },
            ],
            rows,
            rowCount: 30,
          },
          mediaType: 'application/json',
        },
      ],
      { ...plain, maxRows: 3 },
    );
    expect(out).toBe(['product  total', '───────  ─────', 'p0           0', 'p1          10', 'p2          20', '… 27 more rows (30 in all; --raw or --json for the data)'].join('\n'));
  });

  it('a Vega-Lite part is one line saying what the chart is and how to get it', () => {
    const spec = { $schema: 'https://vega.github.io/schema/vega-lite/v5.json', mark: 'bar', data: { values: [{}, {}, {}] }, encoding: { x: { field: 'month' }, y: { field: 'orders' } } };
    expect(partsForTerminal([{ data: spec, mediaType: 'application/vnd.vegalite.v5+json' }], plain)).toBe('chart: bar chart of orders by month, 3 points (a Vega-Lite spec; --raw or --json prints it)');
  });

  it('parts are separated by a blank line; a text streamed in chunks stays one text', () => {
    const out = partsForTerminal([{ text: 'Hel' }, { text: 'lo' }, { text: 'SELECT 1', mediaType: 'application/sql' }, { data: { ok: true } }], plain);
    expect(out).toBe(['Hello', '', 'SQL', '    SELECT 1', '', '{', '  "ok": true', '}'].join('\n'));
  });
});

describe('a Table Expert answer in the terminal', () => {
  let s: TestServer;
  const cwd = mkdtempSync(path.join(tmpdir(), 'agentport-cli-readable-'));
  beforeAll(async () => {
    s = await startTestServer({ agents: [{ id: 'table-expert', builtin: 'table-expert' }] });
  }, 60_000);
  afterAll(async () => s?.stop());

  const cli = async (...args: string[]) => {
    const io = fakeIO(cwd);
    await runCli(['node', 'agentport', ...args], io);
    return { out: io.out, err: io.err, code: io.exits[0] ?? 0 };
  };

  it('send: summary, an aligned table, the SQL and a one-line chart, each apart; --raw and --json keep the data', async () => {
    const te = `${s.http}/a2a/table-expert`;
    const r = await cli('send', te, 'Top 5 products by revenue');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^product_id +product +total_amount$/m);
    expect(r.out).toMatch(/^─+ +─+ +─+$/m);
    expect(r.out).toMatch(/^5 rows$/m);
    expect(r.out).toMatch(/^SQL\n {4}SELECT /m);
    expect(r.out).toMatch(/^chart: bar chart of total_amount by product, 5 points \(a Vega-Lite spec; agentport tasks get .* --raw prints it\)$/m);
    expect(r.out).not.toContain('"rows"');
    expect(r.out).not.toContain('**');
    expect(r.out.split('\n').length).toBeLessThan(60);

    const raw = await cli('send', te, 'Top 5 products by revenue', '--raw');
    expect(raw.out).toContain('"rows": [');
    expect(raw.out).toContain('"$schema": "https://vega.github.io/schema/vega-lite/v5.json"');

    const json = await cli('send', te, 'Top 5 products by revenue', '--json');
    const task = JSON.parse(json.out).task;
    expect(task.artifacts[0].parts.map((p: { mediaType?: string }) => p.mediaType)).toEqual(['text/markdown', 'application/sql', 'application/json', 'application/vnd.vegalite.v5+json']);

    const got = await cli('tasks', 'get', te, task.id);
    expect(got.code).toBe(0);
    expect(got.out).toMatch(/^product_id +product +total_amount$/m);
    expect(got.out).toMatch(/^chart: bar chart of total_amount by product, 5 points \(a Vega-Lite spec; --raw or --json prints it\)$/m);
    expect((await cli('tasks', 'get', te, task.id, '--raw')).out).toContain('"rows": [');
  }, 60_000);

  it('send --stream: a whole artifact is rendered the same way as it arrives; --raw keeps the parts as sent', async () => {
    const te = `${s.http}/a2a/table-expert`;
    const live = await cli('send', te, 'Top 5 products by revenue', '--stream');
    expect(live.code).toBe(0);
    expect(live.out).toMatch(/^product_id +product +total_amount$/m);
    expect(live.out).toMatch(/^chart: bar chart of total_amount by product, 5 points/m);
    expect(live.out).not.toContain('"rows"');
    expect((await cli('send', te, 'Top 5 products by revenue', '--stream', '--raw')).out).toContain('"rows": [');
  }, 60_000);
});
