/**
 * Writes a new agent project from templates/init: the files every project has (common/) and those
 * of one starting point (echo, streaming, input-required, data, llm), with the project's name and
 * the agentport dependency filled in. A template's file replaces common's of the same name (the
 * llm template, having no code, has its own README).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEMPLATES = {
  echo: 'an agent that replies with the text it gets (the smallest one)',
  streaming: 'an agent that streams its answer in chunks of an artifact',
  'input-required': 'a multi-turn agent that asks for what is missing (INPUT_REQUIRED)',
  data: 'a data agent answering from a CSV file with data and file parts',
  llm: 'an LLM agent from YAML alone: a model with instructions, other agents as its tools',
} as const;

export type TemplateName = keyof typeof TEMPLATES;

/** The agentport package this code runs from (a clone, or an installed copy). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TEMPLATE_ROOT = path.join(PACKAGE_ROOT, 'templates', 'init');

/** Files of a template that describe it, and are not copied. */
const META_FILES = new Set(['ABOUT.md', 'TRY.txt']);

export interface ScaffoldOptions {
  dir: string;
  template: TemplateName;
  /** the dependency spec of agentport in package.json */
  agentport: string;
}

export interface Scaffolded {
  name: string;
  agentId: string;
  files: string[];
}

export class ScaffoldError extends Error {}

export function isTemplate(name: string): name is TemplateName {
  return Object.hasOwn(TEMPLATES, name);
}

/** An npm package name from a folder name. */
export function packageNameFor(dir: string): string {
  const name = path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|[-]+$/g, '');
  return name || 'my-agent';
}

export async function scaffold(o: ScaffoldOptions): Promise<Scaffolded> {
  const dir = path.resolve(o.dir);
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new ScaffoldError(`${dir} exists and is not a folder`);
    const present = readdirSync(dir).filter((f) => f !== '.git');
    if (present.length) throw new ScaffoldError(`${dir} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}); choose a new folder`);
  }
  const templateDir = path.join(TEMPLATE_ROOT, o.template);
  // The agent is agents/<id>.ts, or for a template without code the first agent of its config.
  const agentFile = existsSync(path.join(templateDir, 'agents')) ? readdirSync(path.join(templateDir, 'agents'))[0]! : '';
  const agentId = agentFile ? agentFile.replace(/\.ts$/, '') : (/^\s*-\s*id:\s*(\S+)/m.exec(readFileSync(path.join(templateDir, 'agentport.yaml'), 'utf8'))?.[1] ?? 'agent');
  const values: Record<string, string> = {
    name: packageNameFor(dir),
    agentport: o.agentport,
    agentId,
    agentFile,
    about: readFileSync(path.join(templateDir, 'ABOUT.md'), 'utf8').trim(),
    tryIt: readFileSync(path.join(templateDir, 'TRY.txt'), 'utf8').trim(),
  };
  const files: string[] = [];
  const own = new Set(listFiles(templateDir).map(([from, root]) => path.relative(root, from)));
  for (const [from, root] of [...listFiles(path.join(TEMPLATE_ROOT, 'common')), ...listFiles(templateDir)]) {
    const relative = path.relative(root, from);
    if (META_FILES.has(relative)) continue;
    if (root !== templateDir && own.has(relative)) continue;
    // npm leaves .gitignore out of packages, so the template keeps it without the dot.
    const target = relative === 'gitignore' ? '.gitignore' : relative;
    const text = readFileSync(from, 'utf8').replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
    await mkdir(path.dirname(path.join(dir, target)), { recursive: true });
    await writeFile(path.join(dir, target), text);
    files.push(target);
  }
  return { name: values.name!, agentId: values.agentId!, files: files.sort() };
}

/** Every file beneath `root`, each with the root it is relative to. */
function listFiles(root: string): Array<[string, string]> {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => [path.join(e.parentPath, e.name), root]);
}
