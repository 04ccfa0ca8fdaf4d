/**
 * Dev mode's watcher: fs.watch on the project folder and, recursively, its subfolders except
 * node_modules and the like (plus the folder of any agent module not covered, e.g. in dist/).
 * Changes are gathered for a short quiet period, then one reload: the configuration when its file
 * changed, else the agents whose module changed, else (a helper file, a data file) every module
 * agent, since which agent imports what is not known.
 */
import { readdirSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { DevReloader, ReloadResult } from './dev-reload.js';
import type { Config } from '../config/index.js';

export interface DevWatchOptions {
  reloader: DevReloader;
  /** reads the configuration file again (throws ConfigError when it is not valid) */
  rereadConfig: () => Config;
  /** called with each reload's outcome */
  report: (result: ReloadResult, files: readonly string[]) => void;
  /** quiet period before a reload, default 150 ms (editors write a file in several steps) */
  debounceMs?: number;
}

/** Files an agent may import or read at load: code, JSON, tables. */
const HELPER_FILE = /\.([cm]?[jt]sx?|json|csv|tsv|txt)$/i;

/** Folders never worth a reload: dependencies, VCS, build output, the server's own data. */
const IGNORED_SEGMENTS = new Set(['node_modules', '.git', '.agentport', 'dist', 'coverage']);

export class DevWatcher {
  private readonly watchers: FSWatcher[] = [];
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly o: DevWatchOptions) {}

  /** The folders watched. */
  start(): string[] {
    const config = this.o.reloader.config;
    const roots = new Set<string>([config.baseDir]);
    for (const file of this.o.reloader.modules().keys()) {
      const dir = path.dirname(file);
      const covered = [...roots].some((r) => isInside(dir, r) && (path.relative(r, dir) === '' || isProjectFile(path.relative(r, dir))));
      if (!covered) roots.add(dir);
    }
    for (const root of roots) {
      // The folder itself, then each subfolder recursively except ignored ones: a recursive watch
      // of the root would walk node_modules too (Node 20 on Linux adds a watch per folder).
      this.watch(root, root, false);
      for (const entry of readdirSync(root, { withFileTypes: true })) {
        if (entry.isDirectory() && isProjectFile(entry.name)) this.watch(path.join(root, entry.name), root, true);
      }
    }
    return [...roots];
  }

  private watch(dir: string, root: string, recursive: boolean): void {
    const w = watch(dir, { recursive }, (_event, name) => {
      const relative = name ? path.relative(root, path.resolve(dir, name.toString())) : '';
      if (relative && isProjectFile(relative)) this.changed(path.resolve(root, relative));
    });
    w.on('error', () => {});
    this.watchers.push(w);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.watchers) w.close();
  }

  private changed(file: string): void {
    const config = this.o.reloader.config;
    if (this.closed || isInside(file, config.server.dataDir)) return;
    this.pending.add(file);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.flush(), this.o.debounceMs ?? 150);
  }

  private async flush(): Promise<void> {
    const started = Date.now();
    const files = [...this.pending];
    this.pending = new Set();
    const reloader = this.o.reloader;
    const configFile = reloader.config.file;
    let result: ReloadResult;
    if (configFile && files.includes(configFile)) {
      let next: Config | Error;
      try {
        next = this.o.rereadConfig();
      } catch (error) {
        next = error instanceof Error ? error : new Error(String(error));
      }
      result = await reloader.reloadConfig(next);
      // Module edits saved together with the file are not in the diff of the configuration.
      const moduleIds = idsOf(reloader.modules(), files);
      if (result.ok && moduleIds.length) {
        this.o.report(result, files);
        result = await reloader.reloadAgents(moduleIds);
      }
    } else {
      const ids = idsOf(reloader.modules(), files);
      // A file no agent names (a helper, a data file) may be used by any of them; a README is not.
      if (!ids.length && !files.some((f) => HELPER_FILE.test(f))) return;
      result = await reloader.reloadAgents(ids.length ? ids : undefined);
    }
    if (!this.closed) this.o.report(result.ok ? { ...result, line: `${result.line} (${Date.now() - started} ms)` } : result, files);
  }
}

function idsOf(modules: Map<string, string[]>, files: readonly string[]): string[] {
  return files.flatMap((f) => modules.get(f) ?? []);
}

function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** `relative` (to a watched folder) is not an editor's swap or backup file, nor in an ignored folder. */
function isProjectFile(relative: string): boolean {
  const segments = relative.split(/[\\/]/);
  if (segments.some((s) => IGNORED_SEGMENTS.has(s))) return false;
  const name = segments[segments.length - 1] ?? '';
  return !(name.startsWith('.') || name.endsWith('~') || name.endsWith('.swp') || /^\d+$/.test(name));
}
