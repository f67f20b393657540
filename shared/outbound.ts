/**
 * Outbound HTTP to partners (streaming-provider URLs, webhook endpoints, playlist import): only public
 * addresses, a body reader with a size limit. A URL is checked when it is registered (its scheme, and
 * a host that is an address or a loopback name), and every connection is checked again when it is
 * made: the host is resolved by a lookup that refuses loopback, private, link-local, metadata, CGNAT,
 * multicast and other non-public addresses, so a name that resolves elsewhere later (DNS rebinding)
 * still cannot reach them. `OUTBOUND_ALLOW_PRIVATE=true` lifts both checks for development and tests;
 * `OUTBOUND_ALLOW_HOSTS` lifts them for exactly the `host:port` targets it names (a partner on the same
 * machine), and for nothing else.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import type { Config } from './config';
import { badInput } from './errors';

/** The port a scheme's URL reaches when it names none. */
const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'rtmp:': 1935, 'rtmps:': 443 };

/** The schemes a partner target may use, and how a refusal names them. */
export interface OutboundSchemes {
  protocols: readonly string[];
  described: string;
}

/** Partner HTTP endpoints: the default of checkOutboundUrl. */
export const HTTP_SCHEMES: OutboundSchemes = { protocols: ['http:', 'https:'], described: 'an http(s) URL' };

/** RTMP ingest of another platform (a simulcast target). */
export const RTMP_SCHEMES: OutboundSchemes = { protocols: ['rtmp:', 'rtmps:'], described: 'rtmp:// or rtmps://' };

/** Which non-public targets outbound calls may reach. */
export interface OutboundPolicy {
  /** Any of them (config.outboundAllowPrivate). */
  allowPrivate: boolean;
  /** Exactly these normalized `host:port` targets (config.outboundAllowHosts). */
  allowHosts?: readonly string[];
}

/** The policy a service's configuration sets. */
export function outboundPolicy(config: Pick<Config, 'outboundAllowPrivate' | 'outboundAllowHosts'>): OutboundPolicy {
  return { allowPrivate: config.outboundAllowPrivate, allowHosts: config.outboundAllowHosts };
}

/**
 * Whether `host` (a URL's hostname, brackets or not) on `port` (empty = the protocol's default) is one of
 * the policy's named targets; compared in the form config.outboundAllowHosts keeps.
 */
function isAllowedTarget(policy: OutboundPolicy, host: string, port: string | number, protocol: string): boolean {
  if (!policy.allowHosts?.length) return false;
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const named = isIP(bare) === 6 ? `[${bare}]` : bare;
  const effectivePort = String(port || (DEFAULT_PORTS[protocol] ?? 80));
  return policy.allowHosts.includes(`${named}:${effectivePort}`);
}

/** Thrown (as a connection error) when a call would reach a non-public address. */
export class NonPublicAddressError extends Error {
  readonly code = 'ERR_NON_PUBLIC_ADDRESS';
  constructor(readonly address: string) {
    super('the address is not public');
  }
}

/**
 * Whether an IP address is public unicast. IPv4-mapped IPv6 is judged as the IPv4 it carries; every
 * special range ipaddr.js knows (loopback, private, linkLocal incl. 169.254.169.254, carrierGradeNat,
 * unspecified incl. 0/8, multicast, broadcast, uniqueLocal fc00::/7, reserved, 6to4, teredo, NAT64…) is
 * not public.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** The host of a URL without IPv6 brackets, as a connection would use it. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Names that resolve to loopback without asking DNS (RFC 6761). */
const isLoopbackName = (host: string) => /(^|\.)localhost\.?$/i.test(host);

/** An absolute http(s) URL, parsed; anything else is 400 naming `field`. */
export function parseHttpUrl(value: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badInput(`${field} must be an absolute http(s) URL`, field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badInput(`${field} must be an http(s) URL`, field);
  return url;
}

/**
 * Checks a partner URL when it is registered: one of `schemes` (http(s) unless told), and unless private
 * targets are allowed, a host that is neither a non-public address (the URL parser turns `2130706433`,
 * `0x7f000001` and `127.1` into 127.0.0.1 first, for rtmp:// too, as the resolver of whatever connects would)
 * nor a loopback name. Names are not resolved here (that would make registering depend on DNS); the
 * connect-time check covers them. Throws 400 naming `field`.
 */
export function checkOutboundUrl(value: string, field: string, policy: OutboundPolicy, schemes: OutboundSchemes = HTTP_SCHEMES): void {
  const url = schemes === HTTP_SCHEMES ? parseHttpUrl(value, field) : parseUrlOf(value, field, schemes);
  if (policy.allowPrivate || isAllowedTarget(policy, url.hostname, url.port, url.protocol)) return;
  // A scheme the URL standard does not know keeps its host as written: read it as http's parser would.
  const host = hostOf(url.protocol === 'http:' || url.protocol === 'https:' ? url : new URL(`http://${url.host}`));
  if ((isIP(host) && !isPublicAddress(host)) || isLoopbackName(host)) {
    throw badInput(`${field} must be a public address: loopback, private, link-local and other non-public hosts are refused`, field);
  }
}

/** An absolute URL of one of `schemes` with a host, parsed; anything else is 400 naming `field`. */
function parseUrlOf(value: string, field: string, schemes: OutboundSchemes): URL {
  let url: URL | null = null;
  try {
    url = new URL(value);
    new URL(`http://${url.host}`);
  } catch {
    url = null;
  }
  if (!url || !schemes.protocols.includes(url.protocol) || url.hostname === '') throw badInput(`${field} must be ${schemes.described}`, field);
  return url;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup that refuses a name when any of its addresses is not public. */
function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused || addresses.length === 0) return callback(new NonPublicAddressError(refused?.address ?? ''), []);
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
}

/**
 * Connects only to public addresses: an address literal is checked before connecting (Node connects
 * to a literal without a lookup), a name through publicOnlyLookup. Every connection of the agent goes
 * through it, redirects included. A target the policy names connects as any client would.
 */
function publicOnlyConnector(policy: OutboundPolicy): buildConnector.connector {
  const connect = buildConnector({ lookup: publicOnlyLookup });
  const connectNamed = buildConnector({});
  return (options, callback) => {
    if (isAllowedTarget(policy, options.hostname, options.port, options.protocol)) return connectNamed(options, callback);
    const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) && !isPublicAddress(host)) return callback(new NonPublicAddressError(host), null);
    return connect(options, callback);
  };
}

/** One agent per list of named targets (a process has one configuration, tests a few). */
const publicOnlyAgents = new Map<string, Agent>();

/**
 * fetch for partner calls. Unless private targets are allowed, every connection (redirects included)
 * goes through an agent that refuses non-public addresses when it connects. A refused target fails
 * like an unreachable one: a TypeError whose cause is a NonPublicAddressError.
 */
export async function outboundFetch(url: string, init: RequestInit, policy: OutboundPolicy): Promise<Response> {
  if (policy.allowPrivate) return fetch(url, init);
  const key = (policy.allowHosts ?? []).join(',');
  let agent = publicOnlyAgents.get(key);
  if (!agent) {
    agent = new Agent({ connect: publicOnlyConnector(policy) });
    publicOnlyAgents.set(key, agent);
  }
  // undici's own fetch with its own agent: the refusal reaches the caller as the same error object.
  return (await undiciFetch(url, { ...(init as object), dispatcher: agent })) as unknown as Response;
}

/** Whether a failed outboundFetch was refused for its target's address. */
export function isNonPublicRefusal(error: unknown): boolean {
  return (error as { cause?: unknown } | null)?.cause instanceof NonPublicAddressError;
}

/** The body as text, read up to `maxBytes`; null when it is larger (the rest is not read). */
export async function readTextLimited(response: Response, maxBytes: number): Promise<string | null> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    await response.body?.cancel();
    return null;
  }
  const reader = (response.body as ReadableStream<Uint8Array> | null)?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
