import { afterEach, describe, expect, it, vi } from 'vitest';

const setFlags = vi.hoisted(() => vi.fn());
vi.mock('node:v8', async (importOriginal) => ({ ...(await importOriginal<typeof import('node:v8')>()), setFlagsFromString: setFlags }));
const { applyHeapSettings } = await import('../../src/server/heap-settings.js');

describe('applyHeapSettings (ADR 0047)', () => {
  afterEach(() => setFlags.mockClear());

  it('turns allocation-site pretenuring off', () => {
    applyHeapSettings([]);
    expect(setFlags).toHaveBeenCalledExactlyOnceWith('--no-allocation-site-pretenuring');
  });

  it('leaves it alone when the process was started with a choice of its own', () => {
    applyHeapSettings(['--max-old-space-size=512', '--allocation-site-pretenuring']);
    applyHeapSettings(['--no-allocation-site-pretenuring']);
    applyHeapSettings(['--allocation_site_pretenuring']);
    expect(setFlags).not.toHaveBeenCalled();
  });
});
