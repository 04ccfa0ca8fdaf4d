/**
 * `agentport/client`: an A2A client for v1.0 and v0.3 agents on JSON-RPC, HTTP+JSON and gRPC, in
 * the v1.0 data model whatever the wire.
 *
 *   const client = await A2AClient.connect('https://agents.example.com/a2a/echo', { auth: apiKeyAuth(key) });
 *   for await (const ev of client.sendStreamingMessage({ message: textMessage('hi') })) console.log(ev.response);
 */
export { A2AClient, stateOf, taskIdOf, type A2AClientOptions, type ClientEvent } from './client.js';
export { apiKeyAuth, bearerAuth, headerAuth, type AuthProvider } from './auth.js';
export { ClientCredentialsAuth, clientCredentialsAuth, OAuthTokenError, type ClientCredentialsOptions } from './oauth-client-credentials.js';
export { CardResolver, cardUrlCandidates, WELL_KNOWN_CARD_PATH, LEGACY_CARD_PATH, type ResolvedCard, type CardResolverOptions } from './card-resolver.js';
export { loadJwks, verifyCardSignature, type CardVerification } from './card-signature.js';
export { selectInterfaces, isSupported, majorMinor, type InterfacePreferences } from './interface-selection.js';
export { transportFor, type TransportSettings } from './connect-transport.js';
export { A2AClientError, AgentCardError, CardSignatureError, NoUsableInterfaceError, TransportError } from './errors.js';
export { newPushConfig, readPushDelivery, NOTIFICATION_TOKEN_HEADER, type PushConfigInput, type PushDelivery } from './push.js';
export { textMessage, type MessageInput } from './messages.js';
export type { Binding, CallOptions, StreamEvent, SubscribeOptions, Transport } from './transport.js';
export type * from '../protocol/a2a/types.js';
