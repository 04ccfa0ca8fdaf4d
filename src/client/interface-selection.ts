/**
 * Interface selection (spec §8.3 / digest §6): walk `supportedInterfaces` in the card's order (first
 * = the agent's preference) and keep each one whose binding and protocol version this client
 * speaks, optionally narrowed by the caller. The first is used; the rest are the fallbacks, in
 * order, when a transport fails.
 */
import type { AgentCard, AgentInterface } from '../protocol/a2a/types.js';
import { NoUsableInterfaceError } from './errors.js';
import type { Binding } from './transport.js';

export const CLIENT_BINDINGS: readonly Binding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

/** Major.Minor; patch numbers are ignored in negotiation (spec §3.6). */
export function majorMinor(version: string): string {
  const m = /^(\d+)\.(\d+)/.exec(version.trim());
  return m ? `${m[1]}.${m[2]}` : version.trim();
}

/** What this client implements: v1.0 and v0.3, each on JSON-RPC, HTTP+JSON and gRPC. */
export function isSupported(i: AgentInterface): boolean {
  const v = majorMinor(i.protocolVersion ?? '');
  if (!CLIENT_BINDINGS.includes(i.protocolBinding.toUpperCase() as Binding)) return false;
  return v === '1.0' || v === '0.3';
}

export interface InterfacePreferences {
  /** only these bindings (in the card's order, not this list's) */
  bindings?: Binding[];
  /** only these protocol versions, e.g. ['1.0'] to refuse a silent fallback to v0.3 */
  protocolVersions?: string[];
}

export function selectInterfaces(card: AgentCard, prefs: InterfacePreferences = {}): AgentInterface[] {
  const out = card.supportedInterfaces.filter(
    (i) =>
      isSupported(i) &&
      (!prefs.bindings || prefs.bindings.includes(i.protocolBinding.toUpperCase() as Binding)) &&
      (!prefs.protocolVersions || prefs.protocolVersions.map(majorMinor).includes(majorMinor(i.protocolVersion))),
  );
  if (!out.length) {
    const offered = card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`).join(', ') || 'none';
    const wanted = [prefs.bindings?.join('/'), prefs.protocolVersions?.join('/')].filter(Boolean).join(' ');
    throw new NoUsableInterfaceError(`the agent offers no interface this client can use${wanted ? ` (asked for ${wanted})` : ''}; offered: ${offered}`);
  }
  return out;
}
