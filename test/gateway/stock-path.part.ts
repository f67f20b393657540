/**
 * stagegraph's replacements of @apollo/gateway's internal steps (gateway/responseShaping.ts: the answer's
 * shaping and the operations kept per document) answer as the stock path does, byte for byte. Two gateways
 * over any supergraph (`npm run gateway`, gateway/anySupergraph.ts) serve the same stack's four subgraphs over
 * HTTP — one with the replacements, one with `--stock` — and every request goes to both: the deep query
 * (across all four subgraphs, > 50 KB), entity calls through @requires, errors, aliases, fragments, @skip and
 * @include, and variables. The guard itself: the replacements run only on the versions they were proven on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { composeSupergraphSdl } from '../../gateway/compose';
import { loadedVersions, PROVEN_ON } from '../../gateway/responseShaping';
import { IDENTITY_HEADER, signIdentity } from '../../shared/auth/identity';
import type { Stack } from '../../stack';
import { seedDeepSite, type DeepQuery } from '../helpers/deepQuery';
import { rest } from '../helpers/http';
import { entryArgs } from '../helpers/serverProcess';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';

const root = join(__dirname, '..', '..');
let stack: Stack;
let site: TestSite;
let deep: DeepQuery;
let folder: string;
const gateways: { process: ChildProcess; url: string; log: string[] }[] = [];

/** An HTTP relay to `target` that counts the requests it passes on. */
async function countingRelay(target: string): Promise<{ server: HttpServer; url: string; requests: number }> {
  const relay = { server: createHttpServer(), url: '', requests: 0 };
  relay.server.on('request', (req, res) => {
    relay.requests += 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<
        string,
        string
      >;
      void fetch(target, { method: req.method, headers, body: Buffer.concat(chunks) }).then(async (answer) => {
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
  relay.url = `http://127.0.0.1:${(relay.server.address() as AddressInfo).port}/graphql`;
  return relay;
}
const communityRelays: Awaited<ReturnType<typeof countingRelay>>[] = [];

/** `npm run gateway` over `supergraph`, ready once it logs where it listens. */
async function startGateway(supergraph: string, extra: string[]): Promise<{ process: ChildProcess; url: string; log: string[] }> {
  const child = spawn(
    process.execPath,
    [...entryArgs('scripts/gateway.ts'), '--supergraph', supergraph, '--port', '0', '--forward-header', IDENTITY_HEADER, ...extra],
    { cwd: root, env: { ...process.env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const log: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the gateway exited with ${code} before listening: ${log.join('\n')}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      log.push(line);
      const entry = line.startsWith('{') ? (JSON.parse(line) as { msg?: string; url?: string }) : null;
      if (entry?.msg?.startsWith('gateway listening') && entry.url) resolve(entry.url);
    });
  });
  return { process: child, url, log };
}

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Stock path');
  deep = await seedDeepSite(
    async (method, path, headers, body) => {
      const reply = await rest(stack, method, path, { headers, body });
      if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
      return reply.body;
    },
    site,
    stack.config.jwtSecret,
  );
  folder = mkdtempSync(join(tmpdir(), 'stagegraph-stock-path-'));
  // Each gateway reaches the community subgraph through a relay of its own that counts its requests.
  const supergraphs = await Promise.all(
    ['ours', 'stock'].map(async (name) => {
      const relay = await countingRelay(stack.subgraphs.community.url);
      communityRelays.push(relay);
      const file = join(folder, `${name}.graphql`);
      writeFileSync(
        file,
        composeSupergraphSdl((subgraph) => (subgraph === 'community' ? relay.url : stack.subgraphs[subgraph].url)),
      );
      return file;
    }),
  );
  gateways.push(...(await Promise.all([startGateway(supergraphs[0], []), startGateway(supergraphs[1], ['--stock'])])));
}, 120_000);

afterAll(async () => {
  for (const relay of communityRelays) relay.server.close();
  await Promise.all(gateways.map((gateway) => new Promise((resolve) => (gateway.process.once('exit', resolve), gateway.process.kill('SIGTERM')))));
  await stopAll();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** The bytes each gateway answers `body` with, as a caller with the site's developer key (its identity forwarded, signed now). */
async function bothAnswer(body: string): Promise<[string, string]> {
  const headers = {
    'content-type': 'application/json',
    [IDENTITY_HEADER]: signIdentity({ siteId: site.siteId, developerKey: true, account: null, requestId: 'stock-path' }, stack.config.internalSecret),
  };
  const [ours, stock] = await Promise.all(gateways.map(async (gateway) => (await fetch(`${gateway.url}/graphql`, { method: 'POST', headers, body })).text()));
  return [ours, stock];
}

it('runs the replacements only on the versions they were proven on, and the stock path when asked', () => {
  // The lockfile's versions are the proven ones: an upgrade fails here until the audit and this file are run again.
  expect(loadedVersions()).toEqual(PROVEN_ON);
  expect(gateways[0].log.join('\n')).toMatch(/"shaping":"stagegraph"/);
  expect(gateways[1].log.join('\n')).toMatch(/"shaping":"stock"/);
  expect(gateways[1].log.join('\n')).toMatch(/stock path was asked for/);
});

it('answers the deep query byte for byte as the stock path does', async () => {
  const [ours, stock] = await bothAnswer(deep.body);
  expect(ours.length).toBeGreaterThan(50_000);
  expect(JSON.parse(ours).errors).toBeUndefined();
  expect(ours).toBe(stock);
  // Again: the second time runs the operation kept from the first.
  const before = communityRelays.map((relay) => relay.requests);
  const [again, stockAgain] = await bothAnswer(deep.body);
  expect(again).toBe(ours);
  expect(stockAgain).toBe(stock);
  // The plan asks community for the quests' claims and the chat authors' names side by side: one request
  // from ours (gateway/fetchBatches.ts), two from the stock path.
  expect(communityRelays.map((relay, index) => relay.requests - before[index])).toEqual([1, 2]);
});

it('answers entity calls, @requires, errors, fragments, directives and variables byte for byte as the stock path does', async () => {
  const requests = [
    // Quest (content) → claimStatuses (community) → claimedMessage (content, @requires questId status).
    { query: 'query { quests(limit: 5) { results { id title claimStatuses { id status claimedMessage quest { id title } } } } }' },
    {
      query:
        'query Q($skip: Boolean!, $with: Boolean!) { polls(limit: 3) { id ...P question @skip(if: $skip) open @include(if: $with) } } fragment P on Poll { type name answers { id text } }',
      variables: { skip: true, with: false },
    },
    { query: 'query { a: overlays { id n: name } b: overlays { id type } __typename }' },
    { query: 'query { page(id: "000000000000000000000000") { id slug } }' },
    { query: 'query { poll(id: "000000000000000000000000") { id } polls(limit: 1) { id } }' },
    { query: 'query { pageConfiguration(pageId: "nope") { page { id } } }' },
    { query: 'query { nope }' },
    { query: 'mutation { deleteOverlay(id: "000000000000000000000000") { id } }' },
  ];
  for (const request of requests) {
    const [ours, stock] = await bothAnswer(JSON.stringify(request));
    expect({ request: request.query, answer: ours }).toEqual({ request: request.query, answer: stock });
  }
});
