/**
 * What the start-up log says about the public port: the address it is bound to, who can reach it, and the
 * URL to open on this machine. `HOST` defaults to 0.0.0.0, so a log that named only a loopback URL would
 * understate what is exposed.
 */
import { isIP } from 'node:net';

export interface ListenAddress {
  /** e.g. "0.0.0.0:4000 (all IPv4 interfaces: reachable from other machines)". */
  bound: string;
  /** The URL to use on this machine, e.g. "http://localhost:4000". */
  localUrl: string;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function describeListenAddress(host: string, port: number): ListenAddress {
  const hostPort = isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
  if (host === '0.0.0.0') return { bound: `${hostPort} (all IPv4 interfaces: reachable from other machines)`, localUrl: `http://localhost:${port}` };
  if (host === '::') return { bound: `${hostPort} (all interfaces, IPv6 and IPv4: reachable from other machines)`, localUrl: `http://localhost:${port}` };
  if (LOOPBACK.has(host) || host.startsWith('127.')) return { bound: `${hostPort} (loopback: this machine only)`, localUrl: `http://${hostPort}` };
  return { bound: `${hostPort} (this interface only)`, localUrl: `http://${hostPort}` };
}
