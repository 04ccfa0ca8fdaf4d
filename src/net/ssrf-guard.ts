/**
 * SSRF guard for URLs a client or an operator chose: push webhooks, remote A2A agents and MCP servers,
 * the upstream OIDC provider, client metadata documents.
 * A2A v1.0.1 §9 says a sender SHOULD refuse loopback, private and link-local targets; §14 makes the
 * same check a MUST for file URLs. See docs/decisions/0004-push.md.
 *
 * The check resolves the name once and returns the addresses it approved; the caller then connects
 * through `pinnedRequest` (pinned-request.ts), which resolves the name only to those addresses, so
 * a DNS answer that changes between check and connect (rebinding) cannot steer the connection to an
 * address that was never checked.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

export type SsrfRejectionKind = 'invalid-url' | 'scheme' | 'credentials' | 'hostname' | 'address' | 'dns';

/** Thrown by SsrfGuard.check. `message` is safe to return to the client: it never names a resolved address. */
export class SsrfRejectedError extends Error {
  readonly code = 'SSRF_REJECTED';
  constructor(
    readonly kind: SsrfRejectionKind,
    readonly reason: string,
    /** a DNS failure may be transient; every other rejection is a property of the URL */
    readonly retryable = false,
    /**
     * decided by what DNS answered for a name (it does not resolve, or resolves to a refused
     * address), not by the URL's own text: a verdict that can change, and that tells something
     * about the network the server sees
     */
    readonly fromDns = false,
  ) {
    super(reason);
    this.name = 'SsrfRejectedError';
  }
}

export interface SsrfCheckResult {
  url: URL;
  /** the approved addresses; connect only to these (see pinned-lookup.ts) */
  addresses: string[];
}

export type HostResolver = (hostname: string) => Promise<string[]>;

export interface SsrfGuardOptions {
  /** CIDRs (`10.1.0.0/16`), single addresses, hostnames (`hooks.internal`) or suffix wildcards (`*.corp.example`) that are let through */
  allow?: string[];
  /** plain http targets; off by default because A2A §9 says receivers SHOULD use HTTPS */
  allowHttp?: boolean;
  /** DNS resolution; defaults to every A/AAAA record from the system resolver */
  resolve?: HostResolver;
  /** what the URL is, for rejection messages (default 'push notification URL') */
  label?: string;
}

/** Names that reach the host itself or a cloud metadata service whatever the resolver says. */
const BLOCKED_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback', 'metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

const DESCRIBE_RANGE: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  uniqueLocal: 'a private address',
  deprecatedSiteLocal: 'a private address',
};

const systemResolver: HostResolver = async (hostname) => {
  const records = await dns.lookup(hostname, { all: true, verbatim: true });
  return records.map((r) => r.address);
};

function normalizeHostname(hostname: string): string {
  let h = hostname.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  while (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

function parseAddress(address: string): IpAddress | undefined {
  const bare = address.split('%')[0]!; // zone ids (fe80::1%eth0) never make an address acceptable
  return isIP(bare) ? ipaddr.parse(bare) : undefined;
}

/** The IPv4 address an IPv6 address carries and would reach through translation, if any. */
function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const range = addr.range();
  const b = addr.toByteArray();
  if (range === 'ipv4Mapped') return addr.toIPv4Address();
  // NAT64 well-known prefix 64:ff9b::/96: the last 32 bits are the IPv4 target.
  if (range === 'rfc6052' && addr.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) return new ipaddr.IPv4(b.slice(12, 16));
  // 6to4 2002:AABB:CCDD::/48 tunnels to AA.BB.CC.DD.
  if (range === '6to4') return new ipaddr.IPv4(b.slice(2, 6));
  return undefined;
}

/** Why an address must not be contacted, or undefined when it is a public unicast address. */
function refusalFor(addr: IpAddress): string | undefined {
  if (addr.kind() === 'ipv4') {
    const range = addr.range();
    if (range === 'unicast') return undefined;
    return DESCRIBE_RANGE[range] ?? 'a reserved address';
  }
  const v6 = addr as ipaddr.IPv6;
  const v4 = embeddedIPv4(v6);
  if (v4) return refusalFor(v4);
  const range = v6.range();
  if (range in DESCRIBE_RANGE) return DESCRIBE_RANGE[range];
  // Only 2000::/3 is allocated global unicast; everything else (IPv4-compatible ::a.b.c.d, Teredo,
  // local-use NAT64, documentation, ORCHID…) either is not routable or can hide another target.
  if (range === 'unicast' && v6.match(ipaddr.IPv6.parse('2000::'), 3)) return undefined;
  return 'a reserved address';
}

interface AllowList {
  names: Set<string>;
  suffixes: string[];
  cidrs: Array<[IpAddress, number]>;
}

function compileAllowList(entries: string[]): AllowList {
  const list: AllowList = { names: new Set(), suffixes: [], cidrs: [] };
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry.includes('/')) {
      list.cidrs.push(ipaddr.parseCIDR(entry)); // throws on a malformed CIDR: a config error at start
    } else if (parseAddress(normalizeHostname(entry))) {
      const addr = parseAddress(normalizeHostname(entry))!;
      list.cidrs.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
    } else if (entry.startsWith('*.')) {
      list.suffixes.push(normalizeHostname(entry.slice(1)));
    } else if (entry) {
      list.names.add(normalizeHostname(entry));
    }
  }
  return list;
}

export class SsrfGuard {
  private readonly allow: AllowList;
  private readonly allowHttp: boolean;
  private readonly resolve: HostResolver;

  constructor(opts: SsrfGuardOptions = {}) {
    this.allow = compileAllowList(opts.allow ?? []);
    this.allowHttp = opts.allowHttp ?? false;
    this.resolve = opts.resolve ?? systemResolver;
    this.label = opts.label ?? 'push notification URL';
  }
  private readonly label: string;

  /** Validates `url` and resolves its host; throws SsrfRejectedError when any part is refused. */
  async check(url: string): Promise<SsrfCheckResult> {
    let parsed: URL;
    try {
      // The WHATWG parser canonicalizes numeric hosts (2130706433, 0x7f.1, 127.1 → 127.0.0.1)
      // before we look at them, so every IPv4 spelling reaches the address check.
      parsed = new URL(url);
    } catch {
      throw new SsrfRejectedError('invalid-url', `${this.label} is not a valid absolute URL`);
    }
    if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && this.allowHttp)) {
      throw new SsrfRejectedError('scheme', this.allowHttp ? `${this.label} must use http or https` : `${this.label} must use https`);
    }
    if (parsed.username || parsed.password) {
      throw new SsrfRejectedError('credentials', `${this.label} must not contain credentials`);
    }
    const host = normalizeHostname(parsed.hostname);
    if (!host) throw new SsrfRejectedError('invalid-url', `${this.label} has no host`);

    const hostAllowed = this.hostAllowed(host);
    const literal = parseAddress(host);
    const blockedName = !literal && !hostAllowed && (BLOCKED_NAMES.has(host) || host.endsWith('.localhost'));
    const nameRejection = new SsrfRejectedError('hostname', `${this.label} host is not allowed`);
    if (blockedName && this.allow.cidrs.length === 0) throw nameRejection;

    let addresses: string[];
    if (literal) {
      addresses = [host];
    } else {
      try {
        addresses = await this.resolve(host);
      } catch {
        if (blockedName) throw nameRejection;
        throw new SsrfRejectedError('dns', `${this.label} host could not be resolved`, true, true);
      }
      if (addresses.length === 0) {
        if (blockedName) throw nameRejection;
        throw new SsrfRejectedError('dns', `${this.label} host could not be resolved`, true, true);
      }
    }

    if (blockedName) {
      // Only an operator allowlisting every address it resolves to (a local test receiver) lets these through.
      const allAllowed = addresses.every((a) => {
        const addr = parseAddress(a);
        return addr !== undefined && this.addressAllowed(addr);
      });
      if (!allAllowed) throw nameRejection;
    } else if (!hostAllowed) {
      for (const address of addresses) {
        const addr = parseAddress(address);
        if (!addr) throw new SsrfRejectedError('address', `${this.label} host resolved to an invalid address`, false, true);
        if (this.addressAllowed(addr)) continue;
        const refusal = refusalFor(addr);
        if (refusal) {
          throw literal ? new SsrfRejectedError('address', `${this.label} host is ${refusal}`) : new SsrfRejectedError('address', `${this.label} host resolves to ${refusal}`, false, true);
        }
      }
    }
    return { url: parsed, addresses };
  }

  private hostAllowed(host: string): boolean {
    if (this.allow.names.has(host)) return true;
    return this.allow.suffixes.some((s) => host.endsWith(s) && host.length > s.length);
  }

  private addressAllowed(addr: IpAddress): boolean {
    const forms: IpAddress[] = [addr];
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
      forms.push((addr as ipaddr.IPv6).toIPv4Address());
    }
    return forms.some((f) => this.allow.cidrs.some(([net, bits]) => net.kind() === f.kind() && f.match(net, bits)));
  }
}
