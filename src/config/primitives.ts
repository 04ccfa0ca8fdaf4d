/**
 * Value types shared by the configuration sections. Every message here is written to follow the key
 * path in a ConfigError line ("server.port: must be …"), so it starts with a verb and names the rule.
 *
 * Numbers and booleans also accept their string spelling, because `${VAR}` interpolation always
 * yields strings (`port: ${PORT:-8080}`).
 */
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const INTEGER_TEXT = /^[+-]?\d+$/;

function integerFromText(value: unknown): unknown {
  return typeof value === 'string' && INTEGER_TEXT.test(value.trim()) ? Number(value.trim()) : value;
}

function booleanFromText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim().toLowerCase();
  return text === 'true' ? true : text === 'false' ? false : value;
}

export function integer(min: number, max: number = Number.MAX_SAFE_INTEGER, unit = ''): z.ZodType<number, z.ZodTypeDef, unknown> {
  const range = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}${unit}` : `an integer from ${min} to ${max}${unit}`;
  const message = `must be ${range}`;
  return z.preprocess(integerFromText, z.number({ invalid_type_error: message }).int(message).min(min, message).max(max, message));
}

export const port = integer(0, 65535);

export const bool = z.preprocess(booleanFromText, z.boolean({ invalid_type_error: 'must be true or false' }));

export const nonEmptyString = z.string().trim().min(1, 'must not be empty');

const BYTE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

/** "4MiB" → 4194304; "16 KiB", "512kb", plain integers. KB/MB are decimal, KiB/MiB and K/M binary. */
export function parseBytes(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const factor = match ? BYTE_UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || factor === undefined) return undefined;
  return Math.round(Number(match[1]) * factor);
}

const DURATION_UNITS: Record<string, number> = { '': 1, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "30s" → 30000; "500ms", "5m", "1h", "7d", "2w", plain integers (milliseconds). */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const factor = match ? DURATION_UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || factor === undefined) return undefined;
  return Math.round(Number(match[1]) * factor);
}

export function byteSize(min: number): z.ZodType<number, z.ZodTypeDef, unknown> {
  const message = `must be a size of at least ${min} bytes: an integer or a string such as "4MiB", "16KiB"`;
  return z.preprocess((value) => (typeof value === 'string' ? (parseBytes(value) ?? value) : value), z.number({ invalid_type_error: message }).int(message).min(min, message).max(Number.MAX_SAFE_INTEGER, message));
}

export function duration(min: number): z.ZodType<number, z.ZodTypeDef, unknown> {
  const message = `must be a duration of at least ${min} ms: an integer (milliseconds) or a string such as "30s", "500ms", "5m"`;
  return z.preprocess(
    (value) => (typeof value === 'string' ? (parseDuration(value) ?? value) : value),
    z
      .number({ invalid_type_error: message })
      .int(message)
      .min(min, message)
      .max(2 ** 31 - 1, message),
  );
}

/** A name or address to bind to: "127.0.0.1", "0.0.0.0", "::", "localhost". Not a URL. */
export const host = nonEmptyString.refine((value) => !/[\s/]/.test(value) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value), {
  message: 'must be a host name or IP address (not a URL), e.g. 127.0.0.1 or 0.0.0.0',
});

/** An absolute http(s) base URL without query or fragment; a trailing slash is removed. */
export const httpBaseUrl = nonEmptyString
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
      } catch {
        return false;
      }
    },
    { message: 'must be an absolute http:// or https:// URL without query or fragment, e.g. https://agents.example.com' },
  )
  .transform((value) => value.replace(/\/+$/, ''));

/** gRPC interface URLs in A2A cards are `host:port` (A2A v1.0 proto comment on AgentInterface.url). */
export const grpcAddress = nonEmptyString.refine((value) => /^(\[[0-9a-fA-F:.]+\]|[^\s/:[\]]+):\d{1,5}$/.test(value), {
  message: 'must be host:port as gRPC clients dial it, e.g. agents.example.com:443 or [::1]:50051',
});

/** An absolute URI, as used to name A2A extensions. */
export const uri = nonEmptyString.refine(
  (value) => {
    try {
      new URL(value);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be an absolute URI, e.g. https://example.com/extensions/foo/v1' },
);

/** An entry of the push allowlist: a CIDR ("10.0.0.0/8"), an IP address or a host name. */
export const hostOrCidr = nonEmptyString.refine(
  (value) => {
    if (value.includes('/')) {
      try {
        ipaddr.parseCIDR(value);
        return true;
      } catch {
        return false;
      }
    }
    return ipaddr.isValid(value) || /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i.test(value);
  },
  { message: 'must be a CIDR (10.0.0.0/8), an IP address or a host name (hooks.example.com, *.example.com)' },
);
