import { isIP, type LookupFunction } from 'node:net';

/**
 * A `lookup` for node:net/http/https that answers only with the checked addresses, whatever the
 * name: the socket can reach nothing the guard did not approve. TLS still verifies the certificate
 * against the URL's hostname (SNI and checkServerIdentity use `host`, not the address).
 */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const records = addresses.map((address) => ({ address: address.split('%')[0]!, family: isIP(address.split('%')[0]!) }));
  return ((_hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    const usable = family === 4 || family === 6 ? records.filter((r) => r.family === family) : records;
    if (usable.length === 0) {
      const err = Object.assign(new Error('no pinned address for the requested family'), { code: 'ENOTFOUND' });
      callback(err, options.all ? [] : undefined, options.all ? undefined : 0);
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, usable[0]!.address, usable[0]!.family);
  }) as LookupFunction;
}
