/**
 * Dev mode's watcher on a real folder: every way an editor saves a file (in place, temp file +
 * rename, delete + create) reaches a reload, each time and not only the first, and a folder
 * replaced or created while watching is watched again. The reloader here only records what it
 * was asked to reload; the watcher is the thing under test.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/index.js';
import type { DevReloader, ReloadResult } from '../../src/server/dev-reload.js';
import { DevWatcher } from '../../src/server/dev-watch.js';

describe('DevWatcher', () => {
  let dir: string;
  let watcher: DevWatcher;
  /** agent ids of each reload asked for (`*` for "every module agent") */
  let reloads: string[][];
  let waiters: Array<() => void>;

  const module = () => path.join(dir, 'agents/greeter.mjs');

  function reloaderFor(modules: Map<string, string[]>): DevReloader {
    const config = { baseDir: dir, file: path.join(dir, 'agentport.yaml'), server: { dataDir: path.join(dir, '.agentport') } } as unknown as Config;
    const fake = {
      config,
      modules: () => modules,
      async reloadAgents(ids?: readonly string[]): Promise<ReloadResult> {
        reloads.push(ids ? [...ids] : ['*']);
        for (const w of waiters.splice(0)) w();
        return { ok: true, line: 'reloaded' };
      },
      async reloadConfig(): Promise<ReloadResult> {
        reloads.push(['config']);
        for (const w of waiters.splice(0)) w();
        return { ok: true, line: 'reloaded config' };
      },
    };
    return fake as unknown as DevReloader;
  }

  /** Resolves once `count` reloads have been asked for; fails after 5 s. */
  async function reloadCount(count: number): Promise<void> {
    const deadline = Date.now() + 5000;
    while (reloads.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} reloads, saw ${reloads.length}: ${JSON.stringify(reloads)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'agentport-watch-'));
    mkdirSync(path.join(dir, 'agents'));
    writeFileSync(module(), 'v0');
    writeFileSync(path.join(dir, 'agentport.yaml'), 'agents: []\n');
    reloads = [];
    waiters = [];
    watcher = new DevWatcher({
      reloader: reloaderFor(new Map([[module(), ['greeter']]])),
      rereadConfig: () => ({}) as Config,
      report: () => {},
      debounceMs: 40,
      rearmMs: 50,
    });
    expect(watcher.start()).toEqual([dir]);
  });

  afterEach(() => {
    watcher.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const saves: Record<string, (file: string, text: string) => void> = {
    'in place': (file, text) => writeFileSync(file, text),
    'temp file + rename': (file, text) => {
      const temp = `${file}.tmp${Math.random().toString(36).slice(2, 8)}`;
      writeFileSync(temp, text);
      renameSync(temp, file);
    },
    'delete + create': (file, text) => {
      unlinkSync(file);
      writeFileSync(file, text);
    },
  };

  for (const [how, save] of Object.entries(saves)) {
    it(`a module saved ${how}, five times in a row, reloads its agent each time`, async () => {
      for (let i = 1; i <= 5; i++) {
        save(module(), `v${i}`);
        await reloadCount(i);
        expect(reloads[i - 1]).toEqual(['greeter']);
      }
    });
  }

  it('every way of saving, mixed, keeps reloading (a rename does not make later saves go unseen)', async () => {
    const order = ['temp file + rename', 'in place', 'delete + create', 'temp file + rename', 'temp file + rename', 'in place'];
    for (const [i, how] of order.entries()) {
      saves[how]!(module(), `m${i}`);
      await reloadCount(i + 1);
      expect(reloads[i], how).toEqual(['greeter']);
    }
  });

  it('the config file saved by rename reloads the configuration, again and again', async () => {
    const file = path.join(dir, 'agentport.yaml');
    for (let i = 1; i <= 3; i++) {
      saves['temp file + rename']!(file, `agents: [] # ${i}\n`);
      await reloadCount(i);
      expect(reloads[i - 1]).toEqual(['config']);
    }
  });

  it('a folder replaced by another (renamed over) is watched again, and so is a new subfolder', async () => {
    const fresh = path.join(dir, 'agents.new');
    mkdirSync(fresh);
    writeFileSync(path.join(fresh, 'greeter.mjs'), 'replaced');
    rmSync(path.join(dir, 'agents'), { recursive: true });
    renameSync(fresh, path.join(dir, 'agents'));
    await reloadCount(1);
    expect(reloads.at(-1)).toEqual(['greeter']);
    const before = reloads.length;
    saves['temp file + rename']!(module(), 'after');
    await reloadCount(before + 1);
    expect(reloads.at(-1)).toEqual(['greeter']);

    mkdirSync(path.join(dir, 'agents/lib'));
    // Written at once: what a new folder holds when its watch is armed counts as changed too.
    const helper = path.join(dir, 'agents/lib/helper.mjs');
    const count = reloads.length;
    saves['temp file + rename']!(helper, 'export const x = 1;');
    await reloadCount(count + 1);
    expect(reloads.at(-1)).toEqual(['*']);
    saves['temp file + rename']!(helper, 'export const x = 2;');
    await reloadCount(count + 2);
    expect(reloads.at(-1)).toEqual(['*']);
  });

  it('files in node_modules and editor swap files reload nothing', async () => {
    mkdirSync(path.join(dir, 'node_modules'));
    writeFileSync(path.join(dir, 'node_modules/x.js'), '1');
    writeFileSync(path.join(dir, 'agents/.greeter.mjs.swp'), '1');
    writeFileSync(path.join(dir, 'agents/greeter.mjs~'), '1');
    // A real save afterwards is the one and only reload.
    saves['in place']!(module(), 'v9');
    await reloadCount(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(reloads).toEqual([['greeter']]);
  });
});
