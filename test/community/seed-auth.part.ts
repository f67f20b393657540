/**
 * The seeds' Auth column is a contract. This suite reads every endpoint row of both seed documents from
 * test/contract/seed-facts.json (read once from the seeds by scripts/seed-facts.ts), finds the route of the table
 * that serves its method and path, and holds the route to the row: the credentials the row lists are accepted —
 * for a write with D or J added (docs/design.md "Authentication") — and for a read they are enough, asked of a
 * real stack. A seed row that the table does not serve fails too, so the contract cannot drift silently.
 */
import { readFileSync } from 'node:fs';
import { routes } from '../../rest-bridge/server';
import type { AuthCode, RouteSpec } from '../../rest-bridge/table';
import { normalizeSeedPath as normalize, SEED_FACTS_FILE, type SeedRow } from '../../scripts/seed-facts';
import { createChannel, createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { rest } from '../helpers/http';
import type { Stack } from '../../stack';

const seedRows: SeedRow[] = JSON.parse(readFileSync(SEED_FACTS_FILE, 'utf8'));
const routeOf = (row: SeedRow): RouteSpec | undefined =>
  routes.find((route) => route.method.toUpperCase() === row.method && normalize(route.path) === normalize(row.path));
const isRead = (row: SeedRow) => row.method === 'GET';

it('reads endpoint rows from both seed documents', () => {
  expect(new Set(seedRows.map((row) => row.seed))).toEqual(new Set(['000', '001']));
  expect(seedRows.length).toBeGreaterThan(100);
});

const label = (row: SeedRow) => `${row.seed} ${row.section}: ${row.method} ${row.path}`;

describe.each(seedRows.map((row) => [label(row), row] as const))('%s', (_name, row) => {
  it('is served by a route of the table', () => {
    expect(routeOf(row)).toBeDefined();
  });

  it('accepts the credentials the seed row lists', () => {
    const route = routeOf(row) as RouteSpec;
    if ('partner' in row.auth) {
      // A partner's own credential: the route reads it itself, so it needs none of C, D or J.
      const header = row.auth.partner === 'bearer' ? 'authorization' : 'x-dataprovider-signature';
      expect(route.auth).toEqual([]);
      expect(route.params?.some((param) => param.credential && param.name.toLowerCase() === header)).toBe(true);
      return;
    }
    for (const listed of row.auth.codes) {
      // A read: what the row lists is enough. A write also needs D or J (docs/design.md), unless the row's
      // codes already suffice (what a viewer does before holding a token).
      const offers = isRead(row) ? [listed] : [listed, [...listed, 'D'], [...listed, 'J']];
      const accepted = route.auth.some((alternative) => offers.some((offer) => alternative.every((code) => offer.includes(code))));
      expect({ listed, accepted }).toEqual({ listed, accepted: true });
    }
  });
});

// ------------------------------------------------------------------ the reads, asked of a real stack

let stack: Stack;
let site: TestSite;
let other: TestSite;
let adminJwt: string;
let pageId: string;
let playlistId: string;

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack);
  other = await createTestSite(stack, 'Other site');
  adminJwt = await site.token([{ pageId: [], scope: '*', write: true }]);
  pageId = await createChannel(stack, site.siteId);
  const playlist = await rest(stack, 'POST', '/playlist/v1', { headers: site.admin, body: { title: 'Highlights', members: [] } });
  playlistId = playlist.body._id;
});
afterAll(stopAll);

const headersFor = (codes: readonly AuthCode[]): Record<string, string> => ({
  ...(codes.includes('C') ? { 'x-service-client-id': site.siteId } : {}),
  ...(codes.includes('D') ? { 'x-service-developer-key': site.developerKey } : {}),
  ...(codes.includes('J') ? { authorization: `Bearer ${adminJwt}` } : {}),
});

/** A path of the route filled with this site's resources where it names one, else a sample. */
function concrete(path: string): string {
  return path
    .replace(/\/(page|pages)\/v2\/\{id\}$/, `/$1/v2/${pageId}`)
    .replace(/\{pageId\}/, pageId)
    .replace(/\/playlist\/v1\/(validate-references\/)?\{id\}$/, `/playlist/v1/$1${playlistId}`)
    .replace(/\{(\w+)\}/g, (_match, name: string) => `sample-${name}`);
}

/** A sample value of a required query or header parameter, from its schema in the route table. */
function sampleOf(schema: Record<string, unknown>, commaSeparated?: boolean): string {
  if (Array.isArray(schema.enum)) return String(schema.enum[0]);
  if (schema.type === 'integer' || schema.type === 'number') return String(Number(schema.minimum ?? 0));
  if (schema.type === 'boolean') return 'false';
  if (schema.type === 'array') return commaSeparated ? 'sample' : '["sample"]';
  if (schema.type === 'object') return '{}';
  return 'sample';
}

const reads = seedRows.filter((row) => isRead(row) && 'codes' in row.auth && !row.auth.codes.some((codes) => codes.includes('S')));

describe.each(reads.map((row) => [label(row), row] as const))('%s, asked with the seed row’s credentials', (_name, row) => {
  it('is not refused (no 401, no 403)', async () => {
    const route = routeOf(row) as RouteSpec;
    const required = (route.params ?? []).filter((param) => param.required && !param.credential && param.in !== 'path');
    const query = required
      .filter((param) => param.in === 'query')
      .map((param) => `${param.name}=${encodeURIComponent(sampleOf(param.schema, param.commaSeparated))}`);
    const headers = Object.fromEntries(required.filter((param) => param.in === 'header').map((param) => [param.name, sampleOf(param.schema)]));
    const path = concrete(route.path) + (query.length ? `?${query.join('&')}` : '');
    for (const codes of (row.auth as { codes: AuthCode[][] }).codes) {
      const reply = await rest(stack, 'GET', path, { headers: { ...headersFor(codes), ...headers } });
      const refused = reply.status === 401 || reply.status === 403;
      expect({ codes, path, refused, body: refused ? reply.body : null }).toEqual({ codes, path, refused: false, body: null });
    }
  });
});

describe('the site ID alone reads its own site only', () => {
  const siteIdOnly = (who: TestSite) => ({ 'x-service-client-id': who.siteId });

  it.each(['/page/v2', '/pages/v2'])('%s/{id}, lists and channels answer with the site ID alone; another site gets 404 or nothing', async (base) => {
    const own = await rest(stack, 'GET', `${base}/${pageId}`, { headers: siteIdOnly(site) });
    expect(own.status).toBe(200);
    expect(own.body._id).toBe(pageId);
    const foreign = await rest(stack, 'GET', `${base}/${pageId}`, { headers: siteIdOnly(other) });
    expect(foreign.status).toBe(404);
    for (const list of [`${base}/channel`, `${base}/channel/channels-landings`, `${base}/?ids=${encodeURIComponent(JSON.stringify([pageId]))}`]) {
      const mine = await rest(stack, 'GET', list, { headers: siteIdOnly(site) });
      expect(mine.status).toBe(200);
      expect(mine.body.map((page: { _id: string }) => page._id)).toContain(pageId);
      const theirs = await rest(stack, 'GET', list, { headers: siteIdOnly(other) });
      expect(theirs.status).toBe(200);
      expect(theirs.body).toEqual([]);
    }
    const projected = await rest(
      stack,
      'GET',
      `${base}/?ids=${encodeURIComponent(JSON.stringify([pageId]))}&options=${encodeURIComponent(JSON.stringify({ projection: { slug: 1 } }))}`,
      { headers: siteIdOnly(site) },
    );
    expect(projected.body).toEqual([{ _id: pageId, slug: `page-${pageId}` }]);
  });

  it('playlists by id, by list and their references answer with the site ID alone; another site gets 404 or nothing', async () => {
    expect((await rest(stack, 'GET', `/playlist/v1/${playlistId}`, { headers: siteIdOnly(site) })).body._id).toBe(playlistId);
    expect((await rest(stack, 'GET', `/playlist/v1/${playlistId}`, { headers: siteIdOnly(other) })).status).toBe(404);
    expect((await rest(stack, 'GET', `/playlist/v1/validate-references/${playlistId}`, { headers: siteIdOnly(site) })).status).toBe(200);
    expect((await rest(stack, 'GET', `/playlist/v1/validate-references/${playlistId}`, { headers: siteIdOnly(other) })).status).toBe(404);
    const mine = await rest(stack, 'GET', `/playlist/v1/list?ids=${playlistId}`, { headers: siteIdOnly(site) });
    expect(mine.body[playlistId]._id).toBe(playlistId);
    const theirs = await rest(stack, 'GET', `/playlist/v1/list?ids=${playlistId}`, { headers: siteIdOnly(other) });
    expect(theirs.body[playlistId]).toBeUndefined();
    expect(theirs.body.pagination.totalCount).toBe(0);
    // The site's whole list is the seed's C, D: the site ID alone is not enough.
    expect((await rest(stack, 'GET', '/playlist/v1/', { headers: siteIdOnly(site) })).status).toBe(401);
  });

  it('the data-provider availability listing answers with the site ID alone, with that site’s providers only', async () => {
    const registered = await rest(stack, 'POST', '/dataprovider/v1/register', {
      headers: site.admin,
      body: {
        name: 'Scores',
        description: 'live scores',
        schema: { type: 'object', properties: { score: { type: 'number' } } },
        ownerName: 'Ops',
        ownerEmail: 'ops@example.test',
        realtime: true,
      },
    });
    expect(registered.status).toBe(201);
    const mine = await rest(stack, 'GET', '/dataprovider/v1/available', { headers: siteIdOnly(site) });
    expect(mine.status).toBe(200);
    expect(mine.body.results.map((item: { _id: string }) => item._id)).toEqual([registered.body.dataProviderId]);
    const theirs = await rest(stack, 'GET', '/dataprovider/v1/available', { headers: siteIdOnly(other) });
    expect(theirs.body).toEqual({ success: true, results: [] });
  });
});
