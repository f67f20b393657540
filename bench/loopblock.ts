/**
 * The 50 ms rule measured (docs/design.md "Reliability and security": no request blocks the event loop for more
 * than 50 ms): one instance, and per case the longest event-loop block of the server process while the
 * case ran, beside an idle baseline and an ordinary query. The cases are the hostile input the tests prove
 * refused (test/helpers/hostileInputs.ts): GraphQL bombs, data-provider schema patterns refused and
 * accepted, and hostile credentials (garbage, forged, expired, long). Tests assert what is answered;
 * how long the loop was held is measured here, never in a timed test.
 *
 * The block is read from the server's own /metrics: `nodejs_eventloop_lag_max_seconds` is
 * perf_hooks.monitorEventLoopDelay in the server process (prom-client's default metrics), and each scrape
 * resets it, so a scrape before and one after a case bound the case.
 */
import { createHmac, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { signSessionToken } from '../shared/auth/credentials';
import type { AccountRole } from '../shared/auth/identity';
import { BACKTRACKING_TEXT, GRAPHQL_BOMBS, HOSTILE_PATTERN, REFUSED_PATTERNS, schemaWithPattern } from '../test/helpers/hostileInputs';
import { createSite, startInstance, type Instance } from './harness';

/** Times each case is sent, one after another (the longest block of them all is the case's figure). */
const REPEATS = Number(process.env.BENCH_LOOPBLOCK_REPEATS ?? 10);
/** How long the idle baseline watches a server that serves nothing. */
const IDLE_MS = 2000;
/** The goal: no request holds the loop longer. */
export const LOOP_BLOCK_GOAL_MS = 50;

export interface LoopBlockRow {
  case: string;
  /** The server's longest event-loop block while the case ran (ms). */
  maxBlockMs: number;
  /** The statuses the case was answered with (what the tests assert, seen here too). */
  statuses: string;
}

export interface LoopBlockFigures {
  rows: LoopBlockRow[];
  idleMs: number;
  /** The longest block of any hostile case (ms); goal ≤ LOOP_BLOCK_GOAL_MS. */
  worstMs: number;
  worstCase: string;
}

/** The server's longest event-loop block since the previous scrape, in ms (the scrape resets it). */
async function maxBlockSinceLastScrape(instance: Instance): Promise<number> {
  const response = await fetch(`${instance.url}/metrics`);
  if (!response.ok) throw new Error(`/metrics answered ${response.status}: the loopblock bench reads the server's event-loop delay there`);
  const line = (await response.text()).split('\n').find((text) => text.startsWith('nodejs_eventloop_lag_max_seconds '));
  if (!line) throw new Error('/metrics has no nodejs_eventloop_lag_max_seconds (METRICS=off?)');
  return Math.round(Number(line.split(' ')[1]) * 10_000) / 10;
}

/** One request of a case: its answer's status. */
type Send = () => Promise<number>;

const post = (instance: Instance, path: string, headers: Record<string, string>, body: string) =>
  fetch(`${instance.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then(
    async (reply) => (await reply.arrayBuffer(), reply.status),
  );
const get = (instance: Instance, path: string, headers: Record<string, string>) =>
  fetch(`${instance.url}${path}`, { headers })
    .then(async (reply) => (await reply.arrayBuffer(), reply.status))
    .catch(() => 0);

/** Runs `send` REPEATS times between two scrapes: the longest block and the statuses seen. */
async function measureCase(instance: Instance, name: string, send: Send): Promise<LoopBlockRow> {
  await maxBlockSinceLastScrape(instance);
  const statuses = new Map<number, number>();
  for (let index = 0; index < REPEATS; index += 1) {
    const status = await send();
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  const maxBlockMs = await maxBlockSinceLastScrape(instance);
  return { case: name, maxBlockMs, statuses: [...statuses].map(([status, count]) => `${status === 0 ? 'refused' : status}×${count}`).join(' ') };
}

/** The hostile credentials of test/gateway/hostile.e2e.ts, and long ones, as header sets on a C + D route. */
function hostileCredentials(instance: Instance, siteId: string): [string, Record<string, string>][] {
  const secret = instance.env.JWT_SECRET;
  const sub = randomBytes(12).toString('hex');
  const expired = jwt.sign({ site: siteId, roles: [], exp: Math.floor(Date.now() / 1000) - 60 }, 'another-secret-0123456789abcdef', {
    subject: sub,
    issuer: 'stagegraph',
  });
  // Long, but within the HTTP parser's 16 KB header limit, so the application sees them.
  const long = 'A'.repeat(12_000);
  // Well-formed roles, many of them: a token the server itself signed for an account with a long role list.
  const roles: AccountRole[] = Array.from({ length: 220 }, (_, index) => ({ scope: `Scope${index}`, write: index % 2 === 0, pageId: [] }));
  const hugeClaims = signSessionToken({ sub, site: siteId, roles }, secret, 600);
  const bearer = (token: string) => ({ 'x-service-client-id': siteId, authorization: `Bearer ${token}` });
  return [
    ['garbage Bearer', bearer('garbage')],
    ['JWT signed with another secret', bearer(signSessionToken({ sub, site: siteId, roles: [] }, 'another-secret-0123456789abcdef', 600))],
    ['expired JWT', bearer(expired)],
    ['12 KB Bearer of JWT shape', bearer(`${long.slice(0, 4000)}.${long.slice(0, 4000)}.${long.slice(0, 3000)}`)],
    [`signed JWT with ${(hugeClaims.length / 1024).toFixed(0)} KB of claims`, bearer(hugeClaims)],
    ['12 KB developer key', { 'x-service-client-id': siteId, 'x-service-developer-key': long }],
    ['12 KB site ID', { 'x-service-client-id': long, 'x-service-developer-key': 'sgk_garbage' }],
    ['64 KB Bearer (over the header limit)', bearer('A'.repeat(64_000))],
  ];
}

export async function measureLoopBlocks(): Promise<LoopBlockFigures> {
  const instance = await startInstance({ env: { DATA_EVENT_RATE_LIMIT: '10000000' } });
  try {
    const site = createSite(instance);
    const admin = { 'x-service-client-id': site.siteId, 'x-service-developer-key': site.developerKey };
    const graphql = (query: string, headers: Record<string, string>) => () => post(instance, '/graphql', headers, JSON.stringify({ query }));
    const registration = (pattern: string) =>
      JSON.stringify({
        name: `Patterned ${pattern}`,
        description: 'text events',
        schema: schemaWithPattern(pattern),
        ownerName: 'Ada',
        ownerEmail: 'ada@example.test',
        realtime: true,
        ttl: null,
      });
    const register = (pattern: string) => () => post(instance, '/dataprovider/v1/register', admin, registration(pattern));
    const sign = (secret: string, message: string) => createHmac('sha256', secret).update(message).digest('hex');

    // Warm-up: the first request of each path compiles code once; that is not what is measured.
    await graphql('{ site { name } }', admin)();
    await graphql(GRAPHQL_BOMBS.repeatedFields, admin)();
    const safe = (await (
      await fetch(`${instance.url}/dataprovider/v1/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...admin },
        body: registration('^[a-z]+$'),
      })
    ).json()) as {
      dataProviderId: string;
      secret: string;
    };
    const event = (text: string) => () => {
      const body = JSON.stringify({ data: { text } });
      return post(instance, `/dataprovider/v1/${safe.dataProviderId}/events`, { 'X-DataProvider-Signature': sign(safe.secret, body) }, body);
    };
    const hostileUpdate = () => {
      const body = JSON.stringify({ schema: schemaWithPattern(HOSTILE_PATTERN) });
      return fetch(`${instance.url}/dataprovider/v1/${safe.dataProviderId}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'X-DataProvider-Signature': sign(safe.secret, body) },
        body,
      }).then(async (reply) => (await reply.arrayBuffer(), reply.status));
    };

    await maxBlockSinceLastScrape(instance);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleMs = await maxBlockSinceLastScrape(instance);

    const reference = [await measureCase(instance, 'reference: { site { name } } as an admin', graphql('{ site { name } }', admin))];
    const hostile: LoopBlockRow[] = [];
    for (const [name, document] of Object.entries(GRAPHQL_BOMBS)) {
      hostile.push(await measureCase(instance, `GraphQL ${name} (site ID alone)`, graphql(document, { 'x-service-client-id': site.siteId })));
      hostile.push(await measureCase(instance, `GraphQL ${name} (admin)`, graphql(document, admin)));
    }
    hostile.push(await measureCase(instance, `register pattern ${HOSTILE_PATTERN} (refused)`, register(HOSTILE_PATTERN)));
    for (const pattern of REFUSED_PATTERNS) hostile.push(await measureCase(instance, `register pattern ${pattern} (refused)`, register(pattern)));
    hostile.push(await measureCase(instance, 'signed update to a backtracking pattern (refused)', hostileUpdate));
    hostile.push(await measureCase(instance, 'register linear pattern ^[a-z]+$ (accepted)', register('^[a-z]+$')));
    hostile.push(await measureCase(instance, 'event matching the linear pattern (accepted)', event('abc')));
    hostile.push(await measureCase(instance, 'event with the backtracking text (refused by the linear pattern)', event(BACKTRACKING_TEXT)));
    for (const [name, headers] of hostileCredentials(instance, site.siteId))
      hostile.push(await measureCase(instance, `credential: ${name}`, () => get(instance, '/overlay/v1', headers)));

    const worst = hostile.reduce((slowest, row) => (row.maxBlockMs > slowest.maxBlockMs ? row : slowest));
    return {
      rows: [{ case: `idle baseline (${IDLE_MS} ms, no requests)`, maxBlockMs: idleMs, statuses: '' }, ...reference, ...hostile],
      idleMs,
      worstMs: worst.maxBlockMs,
      worstCase: worst.case,
    };
  } finally {
    await instance.stop();
  }
}
