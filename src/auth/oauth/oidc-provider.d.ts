/**
 * The parts of oidc-provider 9 (which ships no type declarations) that src/auth/oauth uses. Kept
 * narrow on purpose: what is not listed here is not used.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  import type { KeyObject } from 'node:crypto';

  export type UnknownObject = Record<string, unknown>;

  export interface AdapterPayload extends UnknownObject {
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: unknown;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export class ExternalSigningKey {
    get kid(): string;
    set kid(v: string);
    get alg(): string;
    set alg(v: string);
    keyObject(): KeyObject;
    sign(data: Uint8Array): Promise<Uint8Array>;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[]; details: UnknownObject };
    params: UnknownObject & { client_id?: string; scope?: string; resource?: string | string[]; redirect_uri?: string };
    session?: { accountId?: string; uid?: string; cookie?: string };
    grantId?: string;
    lastSubmission?: UnknownObject;
    exp: number;
    save(ttl: number): Promise<string>;
  }

  export interface GrantInstance {
    addResourceScope(resource: string, scope: string): void;
    addOIDCScope(scope: string): void;
    rejectResourceScope(resource: string, scope: string): void;
    save(ttl?: number): Promise<string>;
  }

  export interface ClientInstance {
    clientId: string;
    clientName?: string;
    clientSecret?: string;
    redirectUris?: string[];
    grantTypes?: string[];
    scope?: string;
    tokenEndpointAuthMethod?: string;
    applicationType?: string;
    metadata(): UnknownObject;
  }

  /** What `resourceIndicators.getResourceServerInfo` answers for one resource. */
  export interface ResourceServerInfo {
    scope: string;
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: 'jwt' | 'opaque';
    jwt?: { sign?: { alg?: string } };
  }

  export class ResourceServer {
    constructor(identifier: string, info: ResourceServerInfo);
  }

  export interface AccessTokenInstance {
    scope?: string;
    readonly expiration: number;
    save(): Promise<string>;
  }

  /** The Koa context a middleware added with `use` gets: the members our middlewares read and write. */
  export interface MiddlewareContext {
    path: string;
    status: number;
    body: unknown;
    type: string;
    oidc?: { route?: string; client?: { clientId: string }; params?: { token?: unknown; grant_type?: unknown } };
  }

  export class Provider {
    constructor(issuer: string, configuration: UnknownObject);
    readonly issuer: string;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: UnknownObject, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    interactionResult(req: IncomingMessage, res: ServerResponse, result: UnknownObject, options?: { mergeWithLastSubmission?: boolean }): Promise<string>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    use(middleware: (ctx: MiddlewareContext, next: () => Promise<void>) => Promise<void>): void;
    Grant: {
      new (init: { accountId: string; clientId: string }): GrantInstance;
      find(id: string): Promise<GrantInstance | undefined>;
    };
    AccessToken: new (init: {
      accountId: string;
      client: ClientInstance;
      grantId?: string;
      gty?: string;
      scope?: string;
      resourceServer?: ResourceServer;
      expiresIn?: number;
    }) => AccessTokenInstance;
    ResourceServer: typeof ResourceServer;
    /** The handler gets oidc-provider's Koa context; each handler declares the part it reads. */
    registerGrantType(name: string, handler: (ctx: never) => Promise<void>, parameters?: readonly string[]): void;
    Client: {
      find(id: string): Promise<ClientInstance | undefined>;
      prototype: { redirectUriAllowed(this: ClientInstance, value: string): boolean };
    };
  }

  export const errors: {
    InvalidTarget: new (description?: string) => Error;
    InvalidClientMetadata: new (description?: string) => Error;
    InvalidRedirectUri: new (description?: string) => Error;
    InvalidClient: new (description?: string) => Error;
    AccessDenied: new (description?: string) => Error;
    InvalidScope: new (description?: string, scope?: string) => Error;
    InvalidRequest: new (description?: string) => Error;
    InvalidGrant: new () => Error;
  };

  export default Provider;
}
