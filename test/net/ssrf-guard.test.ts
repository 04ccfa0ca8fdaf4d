import { describe, expect, it } from 'vitest';
import { pinnedLookup } from '../../src/net/pinned-lookup.js';
import { SsrfGuard, SsrfRejectedError } from '../../src/net/ssrf-guard.js';

/** A resolver that never touches the network: each name maps to fixed addresses. */
function fakeResolver(table: Record<string, string[]>) {
  const calls: string[] = [];
  const resolve = async (host: string): Promise<string[]> => {
    calls.push(host);
    const hit = table[host];
    if (!hit) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return hit;
  };
  return { resolve, calls };
}

async function rejection(guard: SsrfGuard, url: string): Promise<SsrfRejectedError> {
  const err = await guard.check(url).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `${url} should be refused`).toBeInstanceOf(SsrfRejectedError);
  return err as SsrfRejectedError;
}

describe('SsrfGuard: scheme and URL shape', () => {
  const guard = new SsrfGuard({ resolve: fakeResolver({ 'hooks.example.com': ['93.184.216.34'] }).resolve });

  it('accepts an https URL whose host resolves to a public address', async () => {
    const result = await guard.check('https://hooks.example.com/a2a?x=1');
    expect(result.url.href).toBe('https://hooks.example.com/a2a?x=1');
    expect(result.addresses).toEqual(['93.184.216.34']);
  });

  it('refuses http by default', async () => {
    const err = await rejection(guard, 'http://hooks.example.com/');
    expect(err.kind).toBe('scheme');
    expect(err.message).toBe('push notification URL must use https');
  });

  it('accepts http when allowHttp is set', async () => {
    const g = new SsrfGuard({ allowHttp: true, resolve: fakeResolver({ 'hooks.example.com': ['93.184.216.34'] }).resolve });
    await expect(g.check('http://hooks.example.com/')).resolves.toMatchObject({ addresses: ['93.184.216.34'] });
  });

  it.each(['ftp://hooks.example.com/', 'file:///etc/passwd', 'gopher://hooks.example.com/', 'data:text/plain,hi'])('refuses the non-http scheme of %s', async (url) => {
    expect((await rejection(guard, url)).kind).toBe('scheme');
  });

  it.each(['https://user:pw@hooks.example.com/', 'https://user@hooks.example.com/', 'https://:pw@hooks.example.com/'])('refuses credentials in %s', async (url) => {
    expect((await rejection(guard, url)).kind).toBe('credentials');
  });

  it('refuses a string that is not an absolute URL', async () => {
    expect((await rejection(guard, '/relative/path')).kind).toBe('invalid-url');
    expect((await rejection(guard, 'https://')).kind).toBe('invalid-url');
  });

  it('refuses an unresolvable host with a retryable DNS rejection', async () => {
    const err = await rejection(guard, 'https://nowhere.example.com/');
    expect(err.kind).toBe('dns');
    expect(err.retryable).toBe(true);
  });

  it('carries a stable code and never names the resolved address in its message', async () => {
    const g = new SsrfGuard({ resolve: fakeResolver({ 'intranet.example.com': ['10.1.2.3'] }).resolve });
    const err = await rejection(g, 'https://intranet.example.com/');
    expect(err.code).toBe('SSRF_REJECTED');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe('push notification URL host resolves to a private address');
    expect(err.message).not.toContain('10.1.2.3');
  });
});

describe('SsrfGuard: refused names', () => {
  const { resolve, calls } = fakeResolver({});
  const guard = new SsrfGuard({ resolve });

  it.each([
    'https://localhost/',
    'https://LOCALHOST./',
    'https://api.localhost/',
    'https://localhost.localdomain/',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://metadata/',
    'https://instance-data.ec2.internal/',
  ])('refuses %s by name, before any DNS lookup', async (url) => {
    const err = await rejection(guard, url);
    expect(err.kind).toBe('hostname');
    expect(calls).toEqual([]);
  });

  it('refuses localhost through the system resolver too', async () => {
    const err = await rejection(new SsrfGuard({ allowHttp: true }), 'http://localhost:8080/hook');
    expect(err.kind).toBe('hostname');
  });

  it('names what the URL is for in its reasons (the guard also checks non-push URLs)', async () => {
    const err = await rejection(new SsrfGuard({ allowHttp: true, label: 'remote agent URL' }), 'http://localhost:8080/card');
    expect(err.reason).toBe('remote agent URL host is not allowed');
    expect((await rejection(new SsrfGuard({ allowHttp: true }), 'http://localhost:8080/hook')).reason).toBe('push notification URL host is not allowed');
  });
});

describe('SsrfGuard: refused addresses', () => {
  const guard = new SsrfGuard({ allowHttp: true, resolve: fakeResolver({}).resolve });

  it.each([
    // loopback, in every IPv4 spelling the URL parser canonicalizes
    ['http://127.0.0.1/', 'loopback'],
    ['http://127.9.8.7:8080/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    // private
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.0.1/', 'private'],
    ['http://172.31.255.254/', 'private'],
    ['http://192.168.1.10/', 'private'],
    ['http://[fc00::1]/', 'private'],
    ['http://[fd12:3456::1]/', 'private'],
    ['http://[::ffff:10.0.0.1]/', 'private'],
    ['http://[::ffff:192.168.0.1]/', 'private'],
    // link-local, including the cloud metadata address
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://2852039166/', 'link-local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[::ffff:169.254.169.254]/', 'link-local'],
    // unspecified, multicast, broadcast, CGNAT
    ['http://0.0.0.0/', 'unspecified'],
    ['http://0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://239.255.255.250/', 'multicast'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://100.64.0.1/', 'carrier-grade NAT'],
    ['http://100.127.255.254/', 'carrier-grade NAT'],
    // IPv6 forms that tunnel to an IPv4 target
    ['http://[64:ff9b::7f00:1]/', 'loopback'],
    ['http://[2002:a9fe:a9fe::1]/', 'link-local'],
    ['http://[::127.0.0.1]/', 'reserved'],
    // reserved / documentation
    ['http://240.0.0.1/', 'reserved'],
    ['http://192.0.2.1/', 'reserved'],
    ['http://[2001:db8::1]/', 'reserved'],
  ])('refuses %s as %s', async (url, label) => {
    const err = await rejection(guard, url);
    expect(err.kind).toBe('address');
    expect(err.message).toContain(label);
  });

  it('refuses a hostname that resolves to 127.0.0.1', async () => {
    const g = new SsrfGuard({ resolve: fakeResolver({ 'rebind.example.com': ['127.0.0.1'] }).resolve });
    const err = await rejection(g, 'https://rebind.example.com/');
    expect(err.kind).toBe('address');
    expect(err.message).toBe('push notification URL host resolves to a loopback address');
  });

  it('refuses a hostname when any one of its addresses is internal', async () => {
    const g = new SsrfGuard({
      resolve: fakeResolver({ 'mixed.example.com': ['93.184.216.34', '2606:2800:220:1::1', '10.0.0.7'] }).resolve,
    });
    expect((await rejection(g, 'https://mixed.example.com/')).message).toContain('private');
  });

  it('refuses an IPv4-mapped IPv6 answer from DNS', async () => {
    const g = new SsrfGuard({ resolve: fakeResolver({ 'mapped.example.com': ['::ffff:169.254.169.254'] }).resolve });
    expect((await rejection(g, 'https://mapped.example.com/')).message).toContain('link-local');
  });

  it('accepts public IPv4 and IPv6 literals without a DNS lookup', async () => {
    const { resolve, calls } = fakeResolver({});
    const g = new SsrfGuard({ resolve });
    await expect(g.check('https://93.184.216.34/')).resolves.toMatchObject({ addresses: ['93.184.216.34'] });
    await expect(g.check('https://[2606:2800:220:1::1]/')).resolves.toMatchObject({ addresses: ['2606:2800:220:1::1'] });
    await expect(g.check('https://[::ffff:93.184.216.34]/')).resolves.toBeDefined();
    await expect(g.check('https://[64:ff9b::5db8:d822]/')).resolves.toBeDefined();
    expect(calls).toEqual([]);
  });
});

describe('SsrfGuard: allowlist', () => {
  it('lets an allowlisted CIDR through', async () => {
    const g = new SsrfGuard({ allowHttp: true, allow: ['10.20.0.0/16'] });
    await expect(g.check('http://10.20.3.4:9000/hook')).resolves.toMatchObject({ addresses: ['10.20.3.4'] });
    expect((await rejection(g, 'http://10.21.0.1/')).kind).toBe('address');
  });

  it('lets a single allowlisted address through, also in its IPv4-mapped form', async () => {
    const g = new SsrfGuard({ allowHttp: true, allow: ['127.0.0.1'] });
    await expect(g.check('http://127.0.0.1:8080/')).resolves.toBeDefined();
    await expect(g.check('http://[::ffff:127.0.0.1]:8080/')).resolves.toBeDefined();
    expect((await rejection(g, 'http://127.0.0.2/')).kind).toBe('address');
  });

  it('lets an allowlisted hostname through whatever it resolves to, and returns those addresses', async () => {
    const g = new SsrfGuard({
      allow: ['hooks.corp.internal'],
      resolve: fakeResolver({ 'hooks.corp.internal': ['10.0.0.5'], 'other.corp.internal': ['10.0.0.6'] }).resolve,
    });
    await expect(g.check('https://hooks.corp.internal/')).resolves.toMatchObject({ addresses: ['10.0.0.5'] });
    expect((await rejection(g, 'https://other.corp.internal/')).kind).toBe('address');
  });

  it('matches a wildcard suffix but not the bare domain', async () => {
    const g = new SsrfGuard({
      allow: ['*.corp.example'],
      resolve: fakeResolver({ 'a.corp.example': ['10.0.0.5'], 'corp.example': ['10.0.0.6'], 'xcorp.example': ['10.0.0.7'] }).resolve,
    });
    await expect(g.check('https://a.corp.example/')).resolves.toBeDefined();
    expect((await rejection(g, 'https://corp.example/')).kind).toBe('address');
    expect((await rejection(g, 'https://xcorp.example/')).kind).toBe('address');
  });

  it('lets localhost through only when every address it resolves to is allowlisted', async () => {
    const g = new SsrfGuard({ allowHttp: true, allow: ['127.0.0.0/8', '::1/128'] });
    const result = await g.check('http://localhost:8080/');
    expect(result.addresses.length).toBeGreaterThan(0);
    const partial = new SsrfGuard({ allowHttp: true, allow: ['10.0.0.0/8'], resolve: fakeResolver({ localhost: ['127.0.0.1'] }).resolve });
    expect((await rejection(partial, 'http://localhost/')).kind).toBe('hostname');
  });

  it('still refuses the scheme and credentials of an allowlisted host', async () => {
    const g = new SsrfGuard({ allow: ['127.0.0.1'] });
    expect((await rejection(g, 'http://127.0.0.1/')).kind).toBe('scheme');
    expect((await rejection(g, 'https://u:p@127.0.0.1/')).kind).toBe('credentials');
  });

  it('throws at construction on a malformed CIDR', () => {
    expect(() => new SsrfGuard({ allow: ['10.0.0.0/99'] })).toThrow('neither IPv6 nor IPv4 CIDR format');
  });
});

describe('pinnedLookup', () => {
  const lookup = pinnedLookup(['93.184.216.34', '2606:2800:220:1::1']);
  const call = (options: object) =>
    new Promise<unknown[]>((resolve) => {
      (lookup as unknown as (h: string, o: object, cb: (...args: unknown[]) => void) => void)('anything.example.com', options, (...args) => resolve(args));
    });

  it('answers with the pinned addresses whatever name is asked', async () => {
    expect(await call({})).toEqual([null, '93.184.216.34', 4]);
    expect(await call({ all: true })).toEqual([
      null,
      [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::1', family: 6 },
      ],
    ]);
  });

  it('honours a requested family and fails when no pinned address has it', async () => {
    expect(await call({ family: 6 })).toEqual([null, '2606:2800:220:1::1', 6]);
    const only4 = pinnedLookup(['93.184.216.34']) as unknown as (h: string, o: object, cb: (...a: unknown[]) => void) => void;
    const [err] = await new Promise<unknown[]>((resolve) => only4('x', { family: 6 }, (...a) => resolve(a)));
    expect(err).toMatchObject({ code: 'ENOTFOUND' });
  });
});
