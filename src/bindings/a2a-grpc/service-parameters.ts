/** A2A service parameters as gRPC metadata keys; the rules are shared with HTTP (a2a-common). */
export { activateExtensions, negotiateVersion, parseExtensions, SUPPORTED_VERSION } from '../a2a-common/service-params.js';

export const VERSION_KEY = 'a2a-version';
export const EXTENSIONS_KEY = 'a2a-extensions';
