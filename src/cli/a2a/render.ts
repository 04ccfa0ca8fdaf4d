/** Plain-text renderings of A2A objects for people: parts, task summaries, cards, task tables. */
import { signedWording } from '../../protocol/a2a/card/signing-keys.js';
import { firstMessagePreview } from '../../protocol/a2a/message-preview.js';
import type { AgentCard, Part, Task, TaskState } from '../../protocol/a2a/types.js';

/** The ids and times already take ~120 columns: the preview stays short. */
const CLI_PREVIEW_CHARS = 40;

/** `TASK_STATE_INPUT_REQUIRED` → `input-required` */
export const stateName = (s: TaskState | string): string =>
  s
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');

/** A part as text: text as is, data as JSON, files as a one-line description. */
export function partText(p: Part): string {
  if (p.text !== undefined) return p.text;
  if (p.data !== undefined) return JSON.stringify(p.data, null, 2);
  const what = [p.filename, p.mediaType].filter(Boolean).join(', ');
  if (p.url !== undefined) return `[file ${what ? `${what}, ` : ''}${p.url}]`;
  if (p.raw !== undefined) return `[file ${what ? `${what}, ` : ''}${Buffer.from(p.raw, 'base64').length} bytes]`;
  return '';
}

/**
 * Adjacent text parts run together: a streamed artifact is stored as its chunks, one part each
 * (append), and reads as the one text it is. Files and data go on their own lines.
 */
export function partsText(parts: Part[]): string {
  let out = '';
  parts.forEach((p, i) => {
    if (i > 0 && !(p.text !== undefined && parts[i - 1]!.text !== undefined)) out += '\n';
    out += partText(p);
  });
  return out;
}

/** How parts are shown: as sent (partsText, `--raw`) or for a terminal (terminal-parts.ts). */
export type PartsRenderer = (parts: Part[]) => string;

export function taskSummary(t: Task, render: PartsRenderer = partsText): string {
  const lines = [`task     ${t.id}`, `context  ${t.contextId}`, `state    ${stateName(t.status.state)}`];
  if (t.status.timestamp) lines.push(`updated  ${t.status.timestamp}`);
  if (t.status.message) lines.push(`message  ${render(t.status.message.parts)}`);
  for (const a of t.artifacts ?? []) {
    lines.push('', `── artifact ${a.name ?? a.artifactId}`, render(a.parts));
  }
  return `${lines.join('\n')}\n`;
}

export function cardSummary(card: AgentCard, chosen: { url: string; protocolBinding: string; protocolVersion: string } | undefined): string {
  const out = [`${card.name} ${card.version}`, card.description, ''];
  out.push('interfaces');
  for (const i of card.supportedInterfaces) {
    const mark = chosen && i.url === chosen.url && i.protocolBinding === chosen.protocolBinding && i.protocolVersion === chosen.protocolVersion ? '*' : ' ';
    out.push(` ${mark} ${i.protocolBinding.padEnd(9)} ${i.protocolVersion.padEnd(4)} ${i.url}${i.tenant ? `  tenant=${i.tenant}` : ''}`);
  }
  const caps = card.capabilities;
  const on = [caps.streaming && 'streaming', caps.pushNotifications && 'push notifications', caps.extendedAgentCard && 'extended card'].filter(Boolean);
  out.push('', `capabilities  ${on.join(', ') || 'none'}`);
  for (const e of caps.extensions ?? []) out.push(`extension     ${e.uri}${e.required ? ' (required)' : ''}`);
  const schemes = Object.entries(card.securitySchemes ?? {}).map(([name, s]) => `${name} (${Object.keys(s)[0]?.replace(/SecurityScheme$/, '')})`);
  out.push(`security      ${schemes.join(', ') || 'none declared'}`);
  out.push(`modes         in: ${card.defaultInputModes.join(', ')}  out: ${card.defaultOutputModes.join(', ')}`);
  out.push(`signed        ${signedWording(card)}`);
  out.push('', `skills (${card.skills.length})`);
  for (const s of card.skills) {
    out.push(`  ${s.id}  ${s.name}: ${s.description}`);
    for (const ex of s.examples ?? []) out.push(`      e.g. ${ex}`);
  }
  return `${out.join('\n')}\n`;
}

/** One row per task; MESSAGE (its first user message, cut short) last, as the widest column. */
export function taskTable(tasks: Task[]): string {
  const rows = tasks.map((t) => [t.id, stateName(t.status.state), t.contextId, t.status.timestamp ?? '-', firstMessagePreview(t, CLI_PREVIEW_CHARS) ?? '-']);
  const table = [['TASK', 'STATE', 'CONTEXT', 'UPDATED', 'MESSAGE'], ...rows];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  return `${table.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n')}\n`;
}
