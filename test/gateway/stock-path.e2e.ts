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
  const supergraph = join(folder, 'supergraph.graphql');
  writeFileSync(
    supergraph,
    composeSupergraphSdl((name) => stack.subgraphs[name].url),
  );
  gateways.push(...(await Promise.all([startGateway(supergraph, []), startGateway(supergraph, ['--stock'])])));
}, 120_000);

afterAll(async () => {
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
  const [again, stockAgain] = await bothAnswer(deep.body);
  expect(again).toBe(ours);
  expect(stockAgain).toBe(stock);
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
