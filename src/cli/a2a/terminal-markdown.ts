/**
 * Markdown for a terminal: headings, lists, quotes, code blocks, tables, bold, italic, inline code
 * and links. A compact renderer of the subset agents write, instead of marked + marked-terminal:
 * those pull in a syntax highlighter, an emoji table and several colour libraries (a few MB) for
 * what is about 250 lines here (with terminal-parts.ts), and the CLI has no other use for them.
 * With `color` off (not a terminal, or NO_COLOR) the markers are dropped and no escapes are sent.
 */

export interface TerminalStyle {
  color: boolean;
}

const ESC = '\u001b[';
const sgr = (on: string, off: string) => (s: TerminalStyle, text: string) => (s.color ? `${ESC}${on}m${text}${ESC}${off}m` : text);
export const bold = sgr('1', '22');
export const dim = sgr('2', '22');
const italic = sgr('3', '23');
const cyan = sgr('36', '39');
const underline = sgr('4', '24');

/** Visible width of a string that may hold our escape sequences. */
export function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return [...text.replace(/\u001b\[[0-9;]*m/g, '')].length;
}

export function padVisible(text: string, width: number, right = false): string {
  const pad = ' '.repeat(Math.max(0, width - visibleLength(text)));
  return right ? pad + text : text + pad;
}

/** Columns aligned, numbers to the right, a rule under the header. */
export function alignedTable(s: TerminalStyle, header: string[], rows: string[][], numeric: boolean[] = []): string[] {
  const widths = header.map((h, i) => Math.max(visibleLength(h), ...rows.map((r) => visibleLength(r[i] ?? ''))));
  const line = (cells: string[], head = false) =>
    cells
      .map((c, i) => {
        const cell = padVisible(c, widths[i]!, numeric[i] === true);
        return head ? bold(s, cell) : cell;
      })
      .join('  ')
      .trimEnd();
  return [line(header, true), dim(s, widths.map((w) => '─'.repeat(w)).join('  ')), ...rows.map((r) => line(r))];
}

export function inlineMarkdown(s: TerminalStyle, text: string): string {
  // Inline code first, so what is inside it is left alone.
  const pieces = text.split(/(`[^`]+`)/);
  return pieces
    .map((p) => {
      if (/^`[^`]+`$/.test(p)) return cyan(s, p.slice(1, -1));
      return p
        .replace(/\[([^\]]+)\]\((\S+?)\)/g, (_m, label: string, url: string) => `${underline(s, label)} (${url})`)
        .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, (_m, _d, inner: string) => bold(s, inner))
        .replace(/(^|[^\w*])([*_])(?=\S)(.+?)(?<=\S)\2(?![\w*])/g, (_m, pre: string, _d, inner: string) => pre + italic(s, inner));
    })
    .join('');
}

const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
const cellsOf = (row: string) =>
  row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());

export function renderMarkdown(s: TerminalStyle, markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      const end = lines.findIndex((l, j) => j > i && l.trim().startsWith(fence[1]!));
      const body = lines.slice(i + 1, end < 0 ? lines.length : end);
      out.push(...body.map((l) => `    ${dim(s, l)}`));
      i = end < 0 ? lines.length : end;
      continue;
    }
    if (line.includes('|') && TABLE_RULE.test(lines[i + 1] ?? '')) {
      const header = cellsOf(line);
      const rows: string[][] = [];
      let j = i + 2;
      for (; j < lines.length && lines[j]!.includes('|') && lines[j]!.trim() !== ''; j++) rows.push(cellsOf(lines[j]!));
      const numeric = header.map((_, c) => rows.length > 0 && rows.every((r) => /^-?[\d.,]+%?$/.test(r[c] ?? '')));
      out.push(
        ...alignedTable(
          s,
          header.map((h) => inlineMarkdown(s, h)),
          rows.map((r) => r.map((c) => inlineMarkdown(s, c))),
          numeric,
        ),
      );
      i = j - 1;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const text = inlineMarkdown(s, heading[2]!);
      out.push(heading[1]!.length === 1 ? bold(s, underline(s, text)) : bold(s, text));
      if (!s.color && heading[1]!.length <= 2) out.push((heading[1]!.length === 1 ? '═' : '─').repeat(visibleLength(text)));
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push(dim(s, '─'.repeat(40)));
      continue;
    }
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
    if (bullet) {
      out.push(`${bullet[1]}  • ${inlineMarkdown(s, bullet[2]!)}`);
      continue;
    }
    const numbered = /^(\s*)(\d+)[.)]\s+(.*)$/.exec(line);
    if (numbered) {
      out.push(`${numbered[1]}  ${numbered[2]}. ${inlineMarkdown(s, numbered[3]!)}`);
      continue;
    }
    const quote = /^\s*>\s?(.*)$/.exec(line);
    if (quote) {
      out.push(`${dim(s, '│')} ${inlineMarkdown(s, quote[1]!)}`);
      continue;
    }
    out.push(inlineMarkdown(s, line));
  }
  // At most one blank line in a row, none at the ends.
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
}
