import { describe, expect, it, vi } from 'vitest';
import { applyHeapSettings } from '../../src/server/heap-settings.js';

describe('applyHeapSettings (ADR 0047, ADR 0069, ADR 0081)', () => {
  it('turns allocation-site pretenuring off', () => {
    const setFlags = vi.fn();
    applyHeapSettings({ nodeOptions: [], cores: 8 }, setFlags);
    expect(setFlags).toHaveBeenCalledExactlyOnceWith('--no-allocation-site-pretenuring');
  });

  it('leaves pretenuring alone when the process was started with a choice of its own', () => {
    const setFlags = vi.fn();
    applyHeapSettings({ nodeOptions: ['--max-old-space-size=512', '--allocation-site-pretenuring'], cores: 8 }, setFlags);
    applyHeapSettings({ nodeOptions: ['--no-allocation-site-pretenuring'], cores: 8 }, setFlags);
    applyHeapSettings({ nodeOptions: ['--allocation_site_pretenuring'], cores: 8 }, setFlags);
    expect(setFlags).not.toHaveBeenCalled();
  });

  it('scavenges on the main thread alone with two cores or fewer', () => {
    for (const cores of [1, 2]) {
      const setFlags = vi.fn();
      applyHeapSettings({ nodeOptions: [], cores }, setFlags);
      expect(setFlags.mock.calls).toEqual([['--no-allocation-site-pretenuring'], ['--no-parallel-scavenge']]);
    }
  });

  it('keeps parallel scavenges with more cores, or when the process chose', () => {
    const setFlags = vi.fn();
    applyHeapSettings({ nodeOptions: [], cores: 3 }, setFlags);
    applyHeapSettings({ nodeOptions: ['--parallel-scavenge'], cores: 2 }, setFlags);
    applyHeapSettings({ nodeOptions: ['--no-parallel_scavenge'], cores: 1 }, setFlags);
    expect(setFlags.mock.calls).toEqual([['--no-allocation-site-pretenuring'], ['--no-allocation-site-pretenuring'], ['--no-allocation-site-pretenuring']]);
  });

  it('does not take a flag that only contains the name for a choice', () => {
    const setFlags = vi.fn();
    applyHeapSettings({ nodeOptions: ['--trace-parallel-scavenge', '--trace-allocation-site-pretenuring'], cores: 2 }, setFlags);
    expect(setFlags.mock.calls).toEqual([['--no-allocation-site-pretenuring'], ['--no-parallel-scavenge']]);
  });

  it('reads NODE_OPTIONS beside the command line', () => {
    const setFlags = vi.fn();
    const saved = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = '--max-old-space-size=512 --parallel-scavenge';
    try {
      applyHeapSettings({ cores: 2 }, setFlags);
    } finally {
      if (saved === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved;
    }
    expect(setFlags).toHaveBeenCalledExactlyOnceWith('--no-allocation-site-pretenuring');
  });

  it("says in its debug line when the young generation is V8's default, naming the flag the product ships with", () => {
    const notes = applyHeapSettings({ nodeOptions: ['--max-old-space-size=512', '--trace-max-semi-space-size'], cores: 8 }, vi.fn());
    expect(notes).toEqual(["young generation: V8's default semi-spaces; the shipped launch lines start node with --max-semi-space-size=64 (ADR 0081)"]);
  });

  it('names the semi-space size the process was started with, the command line over NODE_OPTIONS', () => {
    expect(applyHeapSettings({ nodeOptions: ['--max-semi-space-size=64'], cores: 8 }, vi.fn())).toEqual(['young generation: --max-semi-space-size=64 from the node options']);
    expect(applyHeapSettings({ nodeOptions: ['--max_semi_space_size=8'], cores: 8 }, vi.fn())).toEqual(['young generation: --max_semi_space_size=8 from the node options']);
    const saved = process.env.NODE_OPTIONS;
    process.env.NODE_OPTIONS = '--max-semi-space-size=16';
    try {
      // V8 reads NODE_OPTIONS before the command line: this process's own execArgv has no semi-space size
      expect(applyHeapSettings({ cores: 8 }, vi.fn())).toEqual(['young generation: --max-semi-space-size=16 from the node options']);
      expect(applyHeapSettings({ nodeOptions: ['--max-semi-space-size=16', '--max-semi-space-size=32'], cores: 8 }, vi.fn())).toEqual(['young generation: --max-semi-space-size=32 from the node options']);
    } finally {
      if (saved === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved;
    }
  });
});
