export { TokenCipher, VaultDecryptError, type VaultKey } from './token-cipher.js';
export { RefreshRefusedError, TokenVault, type ConnectionSummary, type ConnectReason, type Refresher, type RemoteTokens, type TokenVaultOptions, type VaultEvents } from './token-vault.js';
export { vaultKeysOf } from './vault-keys.js';
export type { CredentialCaller, RemoteCredential, RemoteCredentials } from './remote-credentials.js';
