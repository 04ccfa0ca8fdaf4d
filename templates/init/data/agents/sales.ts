import { readFileSync } from 'node:fs';
import { defineAgent } from 'agentport/agent';

type Row = Record<string, string | number>;

/** data/sales.csv, read when the module loads (so `npm run dev` reloads it when the agent is saved). */
function readCsv(url: URL): Row[] {
  const [header, ...lines] = readFileSync(url, 'utf8').trim().split(/\r?\n/);
  const columns = header!.split(',');
  return lines.map((line) => {
    const cells = line.split(',');
    // Numbers as numbers, so that clients get typed JSON in the data part.
    return Object.fromEntries(columns.map((c, i) => [c, /^-?\d+(\.\d+)?$/.test(cells[i]!) ? Number(cells[i]) : cells[i]!]));
  });
}

const rows = readCsv(new URL('../data/sales.csv', import.meta.url));
const regions = [...new Set(rows.map((r) => String(r.region)))];

function toCsv(selected: Row[]): string {
  const columns = Object.keys(rows[0] ?? {});
  return [columns.join(','), ...selected.map((r) => columns.map((c) => r[c]).join(','))].join('\n') + '\n';
}

/**
 * Answers from a CSV file: "summary" gives revenue per region; "region North" gives that region's
 * rows, as a data part (JSON) and as a CSV file part. Results are artifacts, so MCP clients get
 * them as structured content.
 */
export default defineAgent({
  card: {
    name: 'Sales',
    description: 'Answers questions about data/sales.csv: a summary, or the rows of one region',
    defaultOutputModes: ['text/plain', 'application/json', 'text/csv'],
    skills: [
      { id: 'summary', name: 'Summary', description: 'Revenue per region', tags: ['example', 'data'], examples: ['summary'] },
      { id: 'region', name: 'Rows of a region', description: 'The rows of one region, as JSON and as CSV', tags: ['example', 'data'], examples: ['region North'] },
    ],
  },
  // Which skill a message asks for (authorization checks only that skill's scopes, when it has any).
  skillOf: (message) => (message.parts.some((p) => /\bregion\b/i.test(p.text ?? '')) ? 'region' : 'summary'),
  execute(ctx) {
    const asked = /\bregion\s+(\w+)/i.exec(ctx.text())?.[1];
    if (asked) {
      const region = regions.find((r) => r.toLowerCase() === asked.toLowerCase());
      if (!region) return ctx.reject(`There is no region "${asked}"; the regions are ${regions.join(', ')}.`);
      const selected = rows.filter((r) => r.region === region);
      ctx.artifact(
        [
          { text: `${selected.length} sales in ${region}.` },
          { data: selected, mediaType: 'application/json' },
          { raw: Buffer.from(toCsv(selected)).toString('base64'), mediaType: 'text/csv', filename: `sales-${region.toLowerCase()}.csv` },
        ],
        { name: `sales-${region.toLowerCase()}` },
      );
      return ctx.complete();
    }
    const revenueByRegion = Object.fromEntries(regions.map((r) => [r, rows.filter((x) => x.region === r).reduce((sum, x) => sum + Number(x.revenue), 0)]));
    ctx.artifact(
      [
        { text: `${rows.length} sales in ${regions.length} regions. Ask for "region <name>" to see one region's rows.` },
        { data: { rows: rows.length, columns: Object.keys(rows[0] ?? {}), revenueByRegion }, mediaType: 'application/json' },
      ],
      { name: 'summary' },
    );
    ctx.complete();
  },
});
