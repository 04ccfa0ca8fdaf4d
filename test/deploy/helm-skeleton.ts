/**
 * What can be checked of a Helm chart without Helm. Helm templates are Go templates with Sprig
 * functions; this is not a renderer and claims nothing about rendered output. It reads the
 * template actions (`{{ … }}`) to check their structure, and builds a *skeleton* of each manifest:
 * control lines dropped, a line that is a single `… | nindent N` action replaced by one
 * placeholder key at indent N, other actions replaced by a placeholder scalar. The skeleton must
 * parse as YAML, which catches broken indentation and syntax in the literal parts of the template.
 */
import { parseAllDocuments } from 'yaml';

const ACTION = /\{\{-?\s*([\s\S]*?)\s*-?\}\}/g;
const BLOCK_OPENERS = new Set(['if', 'with', 'range', 'define', 'block']);

/** The text of every action, comments removed. */
export function actions(template: string): string[] {
  return [...template.matchAll(ACTION)].map((m) => m[1]!.trim()).filter((a) => !a.startsWith('/*'));
}

/** Problems with block structure: an `end` without an opener, an opener without an `end`, `else` outside a block. */
export function blockProblems(template: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  for (const action of actions(template)) {
    const word = action.split(/\s+/)[0] ?? '';
    if (BLOCK_OPENERS.has(word)) stack.push(action);
    else if (word === 'end') {
      if (!stack.pop()) problems.push('`end` without an open block');
    } else if (word === 'else' && !stack.length) problems.push('`else` outside a block');
  }
  for (const open of stack) problems.push(`no \`end\` for \`${open}\``);
  return problems;
}

/** `.Values.a.b` paths the template reads (inside `with` blocks, `.` paths are not counted). */
export function valuesPaths(template: string): string[] {
  return [...new Set([...template.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)].map((m) => m[1]!.slice(1)))];
}

/** Names passed to `include "…"`, and names defined with `define "…"`. */
export function includedNames(template: string): string[] {
  return [...template.matchAll(/include\s+"([^"]+)"/g)].map((m) => m[1]!);
}
export function definedNames(template: string): string[] {
  return [...template.matchAll(/define\s+"([^"]+)"/g)].map((m) => m[1]!);
}

export const PLACEHOLDER = 'HELM_VALUE';

/** The skeleton described above, as text. */
export function skeleton(template: string): string {
  const out: string[] = [];
  for (const line of template.replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}\n?/g, '').split('\n')) {
    const only = /^(\s*)\{\{-?\s*([\s\S]*?)\s*-?\}\}\s*$/.exec(line);
    if (only) {
      const body = only[2]!;
      const word = body.split(/\s+/)[0] ?? '';
      if (BLOCK_OPENERS.has(word) || word === 'end' || word === 'else') continue;
      const nindent = /\|\s*nindent\s+(\d+)\s*$/.exec(body);
      if (nindent) {
        out.push(`${' '.repeat(Number(nindent[1]))}${PLACEHOLDER}: ${PLACEHOLDER}`);
        continue;
      }
    }
    out.push(line.replace(ACTION, PLACEHOLDER));
  }
  return out.join('\n');
}

/** The skeleton's YAML documents (non-empty), or the parse errors. */
export function parseSkeleton(template: string): { docs: unknown[]; errors: string[] } {
  const docs = parseAllDocuments(skeleton(template));
  const errors = docs.flatMap((d) => d.errors.map((e) => e.message));
  return { docs: docs.map((d) => d.toJS()).filter((d) => d !== null && d !== undefined), errors };
}
