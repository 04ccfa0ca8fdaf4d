/**
 * Dev mode's watcher: one non-recursive fs.watch per project folder (the config file's folder,
 * each subfolder except node_modules and the like, and the folder of any agent module not covered,
 * e.g. in dist/). Changes are gathered for a short quiet period, then one reload: the configuration
 * when its file changed, else the agents whose module changed, else (a helper file, a data file)
 * every module agent, since which agent imports what is not known.
 *
 * Why folders and not files, and why not `recursive: true`: editors and formatters often save by
 * writing a temporary file and renaming it over the original (vim's backupcopy, JetBrains "safe
 * write", `sed -i`, prettier). A watch on the old file then watches an inode that no longer has a
 * name, and Node 20's recursive watch on Linux (a watch per file, in JavaScript) goes deaf the same
 * way. A folder's watch sees the rename into it. A folder that is itself replaced or removed loses
 * its watch too: it is re-armed when it is back (a new subfolder gets a watch when it appears; a
 * lost one is looked for again on a short timer).
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
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
  /** how often a lost folder is looked for again, default 500 ms */
  rearmMs?: number;
}

/** Files an agent may import or read at load: code, JSON, tables. */
const HELPER_FILE = /\.([cm]?[jt]sx?|json|csv|tsv|txt)$/i;

/** Folders never worth a reload: dependencies, VCS, build output, the server's own data. */
const IGNORED_SEGMENTS = new Set(['node_modules', '.git', '.agentport', 'dist', 'coverage']);

export class DevWatcher {
  /** watched folder → its watch */
  private readonly watchers = new Map<string, FSWatcher>();
  /** folders that lost their watch (removed or replaced), looked for again by the re-arm timer */
  private readonly lost = new Set<string>();
  /** watched roots: every folder below one is watched unless ignored */
  private roots: string[] = [];
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private rearmTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly o: DevWatchOptions) {}

  /** The folders watched (their roots). */
  start(): string[] {
    const config = this.o.reloader.config;
    const roots = new Set<string>([config.baseDir]);
    for (const file of this.o.reloader.modules().keys()) {
      const dir = path.dirname(file);
      const covered = [...roots].some((r) => isInside(dir, r) && (path.relative(r, dir) === '' || isProjectFile(path.relative(r, dir))));
      if (!covered) roots.add(dir);
    }
    this.roots = [...roots];
    for (const root of this.roots) this.watchTree(root);
    return this.roots;
  }

  /** Watches `dir` and every project folder below it; returns the files found (for a re-armed folder). */
  private watchTree(dir: string): string[] {
    if (this.closed) return [];
    if (!this.watchers.has(dir)) {
      let w: FSWatcher;
      try {
        w = watch(dir, (_event, name) => this.event(dir, name?.toString()));
      } catch {
        this.markLost(dir);
        return [];
      }
      // The folder went away or was replaced (EPERM/ENOENT on some platforms): look for it again.
      w.on('error', () => this.markLost(dir));
      this.watchers.set(dir, w);
      this.lost.delete(dir);
    }
    const files: string[] = [];
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      this.markLost(dir);
      return [];
    }
    for (const entry of entries) {
      if (!isProjectFile(entry.name)) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) files.push(...this.watchTree(full));
      else files.push(full);
    }
    return files;
  }

  private event(dir: string, name: string | undefined): void {
    if (this.closed) return;
    if (!name) {
      // No name: something happened to the folder itself; check it is still there.
      if (!isDirectory(dir)) this.markLost(dir);
      return;
    }
    const full = path.join(dir, name);
    if (!this.isWatchable(full)) return;
    if (isDirectory(full)) {
      // A folder created or renamed into place: watch it and count what it holds as changed.
      const replaced = this.watchers.get(full);
      if (replaced) this.drop(full);
      for (const f of this.watchTree(full)) this.changed(f);
      return;
    }
    if (this.watchers.has(full)) this.markLost(full);
    this.changed(full);
    // A folder that was itself replaced (renamed over) keeps a watch on the old one: check.
    if (!isDirectory(dir)) this.markLost(dir);
  }

  /** `full` is under a root and not in an ignored folder. */
  private isWatchable(full: string): boolean {
    return this.roots.some((r) => isInside(full, r) && (path.relative(r, full) === '' || isProjectFile(path.relative(r, full))));
  }

  private drop(dir: string): void {
    for (const [d, w] of this.watchers) {
      if (isInside(d, dir)) {
        w.close();
        this.watchers.delete(d);
      }
    }
  }

  private markLost(dir: string): void {
    if (this.closed) return;
    this.drop(dir);
    this.lost.add(dir);
    if (!this.rearmTimer) this.rearmTimer = setTimeout(() => this.rearm(), this.o.rearmMs ?? 500);
  }

  private rearm(): void {
    this.rearmTimer = undefined;
    if (this.closed) return;
    for (const dir of [...this.lost]) {
      if (!isDirectory(dir)) continue;
      this.lost.delete(dir);
      // Whatever it holds now may differ from what was loaded.
      for (const f of this.watchTree(dir)) this.changed(f);
    }
    if (this.lost.size && !this.rearmTimer) this.rearmTimer = setTimeout(() => this.rearm(), this.o.rearmMs ?? 500);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.rearmTimer) clearTimeout(this.rearmTimer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
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

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
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
