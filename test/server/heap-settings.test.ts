import { describe, expect, it, vi } from 'vitest';
import { applyHeapSettings } from '../../src/server/heap-settings.js';

describe('applyHeapSettings (ADR 0047)', () => {
  it('turns allocation-site pretenuring off', () => {
    const setFlags = vi.fn();
    applyHeapSettings([], setFlags);
    expect(setFlags).toHaveBeenCalledExactlyOnceWith('--no-allocation-site-pretenuring');
  });

  it('leaves it alone when the process was started with a choice of its own', () => {
    const setFlags = vi.fn();
    applyHeapSettings(['--max-old-space-size=512', '--allocation-site-pretenuring'], setFlags);
    applyHeapSettings(['--no-allocation-site-pretenuring'], setFlags);
    applyHeapSettings(['--allocation_site_pretenuring'], setFlags);
    expect(setFlags).not.toHaveBeenCalled();
  });
});
