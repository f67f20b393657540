/**
 * The readers of configuration values (shared/config.ts): each reads one setting from the environment, checks it
 * and says what is wrong in the variable's own name, so a bad setting stops the start with a clear message.
 */
import { isIP } from 'node:net';

/** Limits of a GraphQL document, checked before validation. */
export interface GraphQLLimits {
  /** Lexical tokens a document may hold; parsing stops past it (`GRAPHQL_MAX_TOKENS`, default 500). */
  maxTokens: number;
  /** Nesting of selections, introspection aside (`GRAPHQL_MAX_DEPTH`, default 12). */
  maxDepth: number;
  /** Aliased fields in one operation, fragments included (`GRAPHQL_MAX_ALIASES`, default 20). */
  maxAliases: number;
  /** Directives in one operation, fragments included (`GRAPHQL_MAX_DIRECTIVES`, default 20). */
  maxDirectives: number;
}

export type Env = Record<string, string | undefined>;

export function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

export function graphqlLimits(env: Env): GraphQLLimits | null {
  const switched = env.GRAPHQL_LIMITS || 'on';
  if (switched !== 'on' && switched !== 'off') throw new Error(`GRAPHQL_LIMITS must be on or off, got "${switched}"`);
  if (switched === 'off') return null;
  return {
    maxTokens: integer(env, 'GRAPHQL_MAX_TOKENS', 500, 50, 100_000),
    maxDepth: integer(env, 'GRAPHQL_MAX_DEPTH', 12, 2, 1000),
    maxAliases: integer(env, 'GRAPHQL_MAX_ALIASES', 20, 0, 100_000),
    maxDirectives: integer(env, 'GRAPHQL_MAX_DIRECTIVES', 20, 0, 100_000),
  };
}

export function integer(env: Env, name: string, fallback: number, min = 0, max = 65535 * 1024 * 1024): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

/** An absolute http(s) URL without query or fragment (the caller adds its own query). */
export function httpUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new Error(`${name} must be an http(s) URL without query or fragment, got "${raw}"`);
  }
  return raw;
}

export function powerOfTwo(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = integer(env, name, fallback, min, max);
  if ((value & (value - 1)) !== 0) throw new Error(`${name} must be a power of two, got "${env[name]}"`);
  return value;
}

/** `DNS_SERVERS` as Node's resolver takes it: each entry an IP address, with an optional port. */
export function dnsServers(env: Env): string[] | null {
  const raw = env.DNS_SERVERS?.trim();
  if (!raw) return null;
  return raw.split(',').map((entry) => {
    const server = entry.trim();
    const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+)(?::(\d+))?$/.exec(server);
    // A bare IPv6 address holds colons and no port.
    const [host, port] = match ? [match[1], match[2]] : [server, undefined];
    const validPort = port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
    if (!isIP(host) || !validPort) throw new Error(`DNS_SERVERS must be comma-separated ip[:port] entries ([ip]:port for IPv6), got "${server}"`);
    return server;
  });
}

/**
 * `host:port` entries, comma-separated, each normalized to what `new URL('http://host:port').host`
 * gives (lowercase name, canonical IPv4, compressed IPv6 in brackets) but always with its port.
 */
export function hostPorts(env: Env, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((entry) => {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/?#@[\]]+):(\d{1,5})$/.exec(entry.trim());
    const port = Number(match?.[2]);
    let host = '';
    try {
      host = match ? new URL(`http://${match[1]}/`).hostname : '';
    } catch {
      host = '';
    }
    if (!match || !host || port < 1 || port > 65535) throw new Error(`${name} must be a comma-separated list of host:port, got "${entry.trim()}"`);
    return `${host}:${port}`;
  });
}

/** PUBLIC_URL without its trailing slash; an http(s) URL with no query, fragment or credentials. */
export function publicUrlOf(raw: string | undefined, port: number): string {
  const value = raw || `http://localhost:${port}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`PUBLIC_URL must be an http(s) URL such as https://watch.example.com, got "${value}"`);
  }
  if (!/^https?:$/.test(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new Error(`PUBLIC_URL must be an http(s) URL without query, fragment or credentials, got "${value}"`);
  }
  return url.href.replace(/\/+$/, '');
}
