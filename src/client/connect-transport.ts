/** Builds the transport adapter for one card interface: binding × protocol version. */
import type { AgentInterface } from '../protocol/a2a/types.js';
import type { AuthProvider } from './auth.js';
import { NoUsableInterfaceError } from './errors.js';
import type { HttpOptions } from './http.js';
import { majorMinor } from './interface-selection.js';
import type { Transport } from './transport.js';
import { lazyTransport } from './lazy-transport.js';
import { jsonRpcTransport } from './transports/jsonrpc.js';
import { restTransport } from './transports/rest.js';
import type { GrpcTransportOptions } from './transports/grpc.js';
import { jsonRpcV03Transport } from './v03/jsonrpc-v03.js';
import { restV03Transport } from './v03/rest-v03.js';

export interface TransportSettings {
  fetch?: typeof fetch;
  auth?: AuthProvider;
  extensions?: string[];
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** gRPC over TLS; default: only for grpcs:// or https:// interface URLs */
  grpcTls?: boolean;
}

export function transportFor(i: AgentInterface, s: TransportSettings): Transport {
  const http: HttpOptions = {
    ...(s.fetch ? { fetch: s.fetch } : {}),
    ...(s.auth ? { auth: s.auth } : {}),
    ...(s.extensions ? { extensions: s.extensions } : {}),
    ...(s.headers ? { headers: s.headers } : {}),
    ...(s.timeoutMs ? { timeoutMs: s.timeoutMs } : {}),
  };
  // §8.3: the interface's tenant goes verbatim into every request; none when the entry has none.
  const tenant = i.tenant || undefined;
  const v03 = majorMinor(i.protocolVersion) === '0.3';
  switch (i.protocolBinding.toUpperCase()) {
    case 'JSONRPC':
      return v03 ? jsonRpcV03Transport(i.url, http) : jsonRpcTransport(i.url, http, tenant);
    case 'HTTP+JSON':
      return v03 ? restV03Transport(i.url, http) : restTransport(i.url, http, tenant);
    case 'GRPC': {
      const grpcOptions: GrpcTransportOptions = {
        ...(s.auth ? { auth: s.auth } : {}),
        ...(s.extensions ? { extensions: s.extensions } : {}),
        ...(s.headers ? { headers: s.headers } : {}),
        ...(s.timeoutMs ? { timeoutMs: s.timeoutMs } : {}),
        ...(s.grpcTls === undefined ? {} : { tls: s.grpcTls }),
      };
      // imported on the first call: only a client that calls over gRPC loads @grpc/grpc-js
      return v03
        ? lazyTransport('GRPC', '0.3', i.url, async () => (await import('./v03/grpc-v03.js')).grpcV03Transport(i.url, grpcOptions))
        : lazyTransport('GRPC', '1.0', i.url, async () => (await import('./transports/grpc.js')).grpcTransport(i.url, grpcOptions, tenant));
    }
  }
  throw new NoUsableInterfaceError(`no transport for ${i.protocolBinding} ${i.protocolVersion}`);
}
