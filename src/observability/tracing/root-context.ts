/**
 * The root of every trace context Agentport makes. The API's own contexts (`ROOT_CONTEXT` and what
 * grows from it) copy their whole map and make three closures for every value set: five objects
 * per span, for a map that only ever holds the span. Here a context set from another is one
 * object: the value, its key and the context it was set on, read back by walking that chain (a few
 * links deep: each span's context points at its parent's). `getValue` answers as the API's does;
 * a deleted key reads as undefined, as there.
 */
import type { Context } from '@opentelemetry/api';

class ChainedContext implements Context {
  constructor(
    private readonly parent: ChainedContext | undefined,
    private readonly key: symbol | undefined,
    private readonly value: unknown,
  ) {}

  getValue(key: symbol): unknown {
    for (let c: ChainedContext | undefined = this; c; c = c.parent) if (c.key === key) return c.value;
    return undefined;
  }

  setValue(key: symbol, value: unknown): Context {
    return new ChainedContext(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return new ChainedContext(this, key, undefined);
  }
}

/** The empty context: no span, no value. */
export const ROOT: Context = new ChainedContext(undefined, undefined, undefined);
