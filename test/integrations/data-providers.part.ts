/**
 * Data providers as partners use them: registration, the availability listing, signed events (every
 * error of the contract), signed update and removal, expiry, the per-provider rate limit, tenancy.
 */
import { createHmac } from 'node:crypto';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { graphql, rest } from '../helpers/http';
import { until } from '../helpers/wait';
import type { Stack } from '../../stack';
import { newId } from '../../shared/ids';

let stack: Stack;
let site: TestSite;
let other: TestSite;

const sign = (secret: string, message: string) => createHmac('sha256', secret).update(message).digest('hex');

const scoreSchema = {
  type: 'object',
  required: ['data', 'meta'],
  additionalProperties: false,
  properties: {
    data: { type: 'object', required: ['score'], properties: { score: { type: 'number' }, team: { type: 'string' } } },
    meta: { type: 'object', properties: { type: { type: 'string' } } },
  },
};

const registration = {
  name: 'Scores',
  description: 'live match scores',
  schema: scoreSchema,
  ownerName: 'Ada Lovelace',
  ownerEmail: 'ada@example.test',
  realtime: true,
  ttl: null,
};

async function register(owner: TestSite, body: object = registration): Promise<{ dataProviderId: string; secret: string }> {
  const reply = await rest(stack, 'POST', '/dataprovider/v1/register', { headers: owner.admin, body });
  expect(reply.status).toBe(201);
  return reply.body;
}

/** Sends an event signed over its exact text. */
function send(stackOrProvider: { dataProviderId: string; secret: string }, text: string, signature = sign(stackOrProvider.secret, text), target = stack) {
  return rest(target, 'POST', `/dataprovider/v1/${stackOrProvider.dataProviderId}/events`, {
    headers: { 'X-DataProvider-Signature': signature },
    rawBody: text,
  });
}

const EVENTS = /* GraphQL */ `query Events($id: ID!, $limit: Int) { dataEvents(dataProviderId: $id, limit: $limit) { id dataProviderId payload received expires } }`;

async function storedEvents(owner: TestSite, dataProviderId: string, limit = 500) {
  const reply = await graphql(stack, EVENTS, { id: dataProviderId, limit }, owner.admin);
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data.dataEvents as { id: string; payload: any; received: number; expires: number | null }[];
}

beforeAll(async () => {
  stack = await startTestStack();
  site = await createTestSite(stack, 'Site A');
  other = await createTestSite(stack, 'Site B');
});
afterAll(stopAll);

describe('registration', () => {
  it('answers 201 with the provider ID and a secret that is stored only encrypted', async () => {
    const { dataProviderId, secret } = await register(site);
    expect(dataProviderId).toMatch(/^[0-9a-f]{24}$/);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    const row = await stack.database.prisma.dataProvider.findUniqueOrThrow({ where: { id: dataProviderId } });
    expect(row.secretEncrypted).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(secret);
  });

  it('requires every required field, naming it', async () => {
    for (const field of ['name', 'description', 'schema', 'ownerName', 'ownerEmail', 'realtime']) {
      const body: Record<string, unknown> = { ...registration };
      delete body[field];
      const reply = await rest(stack, 'POST', '/dataprovider/v1/register', { headers: site.admin, body });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ success: false, message: expect.stringContaining(field) });
    }
  });

  it('refuses a schema that is not a valid JSON Schema, a bad e-mail, a bad ttl and unknown fields', async () => {
    for (const [body, field] of [
      [{ ...registration, schema: { type: 'no-such-type' } }, 'schema'],
      [{ ...registration, schema: { properties: { a: { minimum: 'ten' } } } }, 'schema'],
      [{ ...registration, schema: { $ref: '#/definitions/missing' } }, 'schema'],
      [{ ...registration, ownerEmail: 'not-an-email' }, 'ownerEmail'],
      [{ ...registration, ttl: 0 }, 'ttl'],
      [{ ...registration, secret: 'mine' }, 'secret'],
    ] as const) {
      const reply = await rest(stack, 'POST', '/dataprovider/v1/register', { headers: site.admin, body });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toContain(field);
    }
    const count = await stack.database.prisma.dataProvider.count({ where: { siteId: site.siteId, name: registration.name, ownerEmail: 'not-an-email' } });
    expect(count).toBe(0);
  });

  it('needs the site ID and the developer key', async () => {
    const without = await rest(stack, 'POST', '/dataprovider/v1/register', { headers: { 'x-service-client-id': site.siteId }, body: registration });
    expect(without.status).toBe(401);
    const wrongKey = await rest(stack, 'POST', '/dataprovider/v1/register', {
      headers: { ...site.admin, 'x-service-developer-key': other.developerKey },
      body: registration,
    });
    expect(wrongKey.status).toBe(401);
  });
});

describe('availability listing', () => {
  it('lists the site’s providers with their facts and nothing secret or internal', async () => {
    const mine = await register(site, { ...registration, name: 'Listed', tags: ['sports'] });
    const theirs = await register(other, { ...registration, name: 'Theirs' });
    const reply = await rest(stack, 'GET', '/dataprovider/v1/available', { headers: site.admin });
    expect(reply.status).toBe(200);
    expect(reply.body.success).toBe(true);
    const item = reply.body.results.find((result: { _id: string }) => result._id === mine.dataProviderId);
    expect(item).toEqual({
      _id: mine.dataProviderId,
      name: 'Listed',
      description: registration.description,
      facts: ['data.score', 'data.team', 'meta.type'],
      created: expect.any(Number),
      modified: expect.any(Number),
      tags: ['sports'],
    });
    expect(reply.body.results.map((result: { _id: string }) => result._id)).not.toContain(theirs.dataProviderId);
    expect(JSON.stringify(reply.body)).not.toContain(mine.secret);
  });

  it('needs the site ID', async () => {
    const reply = await rest(stack, 'GET', '/dataprovider/v1/available');
    expect(reply.status).toBe(401);
  });
});

describe('event ingestion', () => {
  let provider: { dataProviderId: string; secret: string };
  beforeAll(async () => {
    provider = await register(site, { ...registration, name: 'Ingest' });
  });

  it('stores a signed event that conforms to the schema before answering 201 { success: true }', async () => {
    const text = JSON.stringify({ data: { score: 3, team: 'home' }, meta: { type: 'goal' } });
    const reply = await send(provider, text);
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({ success: true });
    const [stored] = await storedEvents(site, provider.dataProviderId, 1);
    expect(stored.payload).toEqual(JSON.parse(text));
    expect(stored.expires).toBeNull();
  });

  it('verifies the signature over the exact body: missing, wrong, or over other bytes is 401', async () => {
    const text = JSON.stringify({ data: { score: 1 }, meta: {} });
    const before = (await storedEvents(site, provider.dataProviderId)).length;
    const missing = await rest(stack, 'POST', `/dataprovider/v1/${provider.dataProviderId}/events`, { rawBody: text });
    expect(missing.status).toBe(401);
    expect(missing.body.success).toBe(false);
    expect((await send(provider, text, 'f'.repeat(64))).status).toBe(401);
    expect((await send(provider, text, sign('another secret', text))).status).toBe(401);
    // Same JSON, other bytes: the signature is over what was sent, not over its meaning.
    expect((await send(provider, JSON.stringify({ data: { score: 1 }, meta: {} }, null, 2), sign(provider.secret, text))).status).toBe(401);
    expect((await send(provider, text, sign(provider.secret, text).toUpperCase())).status).toBe(401);
    expect((await storedEvents(site, provider.dataProviderId)).length).toBe(before);
  });

  it('keeps the exact bytes: a body with spacing and unicode verifies', async () => {
    const text = '{ "data" : { "score" : 7, "team": "Zürich ⚽" },\n "meta": {"type":"goal"} }';
    const reply = await send(provider, text);
    expect(reply.status).toBe(201);
    const [stored] = await storedEvents(site, provider.dataProviderId, 1);
    expect(stored.payload.data.team).toBe('Zürich ⚽');
  });

  it('answers 403 for an unknown provider', async () => {
    const reply = await send({ dataProviderId: '0'.repeat(24), secret: provider.secret }, '{}');
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ success: false, message: expect.any(String) });
  });

  it('answers 400 naming what does not match the schema, and for a body that is not JSON', async () => {
    const wrongType = await send(provider, JSON.stringify({ data: { score: 'three' }, meta: {} }));
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({ success: false, message: expect.stringContaining('data.score') });
    const missing = await send(provider, JSON.stringify({ data: {}, meta: {} }));
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('score');
    const extra = await send(provider, JSON.stringify({ data: { score: 1 }, meta: {}, secret: 1 }));
    expect(extra.status).toBe(400);
    expect(extra.body.message).toContain('secret');
    const notJson = await send(provider, '{"data":');
    expect(notJson.status).toBe(400);
  });

  it('answers 413 for a body over 256 KB', async () => {
    const text = JSON.stringify({ data: { score: 1, team: 'x'.repeat(260 * 1024) }, meta: {} });
    const reply = await send(provider, text);
    expect(reply.status).toBe(413);
    expect(reply.body.success).toBe(false);
  });

  it('stores 200 concurrent events, every one', async () => {
    const fresh = await register(site, { ...registration, name: 'Concurrent' });
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, index) => send(fresh, JSON.stringify({ data: { score: index }, meta: { type: 'tick' } }))),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(200).fill(201));
    const stored = await storedEvents(site, fresh.dataProviderId);
    expect(stored).toHaveLength(200);
    expect(new Set(stored.map((event) => event.payload.data.score)).size).toBe(200);
  });

  it('expires events after ttl seconds; ttl null keeps them', async () => {
    const shortLived = await register(site, { ...registration, name: 'Short-lived', ttl: 1 });
    expect((await send(shortLived, JSON.stringify({ data: { score: 1 }, meta: {} }))).status).toBe(201);
    const [event] = await stack.database.prisma.dataEvent.findMany({ where: { dataProviderId: shortLived.dataProviderId } });
    const expiresAt = (event.expiresAt as Date).getTime();
    expect(expiresAt - event.receivedAt.getTime()).toBe(1000);
    // Listed while its ttl runs, gone once it is up: measured on each read, never assumed from a sleep.
    await until(
      async () => {
        const events = await storedEvents(site, shortLived.dataProviderId);
        const readAt = Date.now();
        if (events.length === 0) expect(readAt).toBeGreaterThanOrEqual(expiresAt);
        if (readAt < expiresAt) expect(events).toHaveLength(1);
        return events;
      },
      (events) => events.length === 0,
      'the event expired',
    );
    expect((await storedEvents(site, provider.dataProviderId)).length).toBeGreaterThan(0);
  });
});

describe('events stored by the plain driver', () => {
  it('stores every column exactly as Prisma stores it, and the listing reads both alike', async () => {
    const kept = await register(site, { ...registration, name: 'Stored alike', ttl: 90 });
    const payload = { data: { score: -1.25e-7, team: 'Ünïcødé "quoted" \\ back\nslash 🎉' }, meta: { type: 'tick' } };
    const before = Date.now();
    expect((await send(kept, JSON.stringify(payload))).status).toBe(201);
    const after = Date.now();
    const fast = await stack.database.prisma.dataEvent.findFirstOrThrow({ where: { dataProviderId: kept.dataProviderId } });
    expect(fast.payload).toEqual(payload);
    expect(fast.receivedAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(fast.receivedAt.getTime()).toBeLessThanOrEqual(after);
    expect((fast.expiresAt as Date).getTime() - fast.receivedAt.getTime()).toBe(90_000);

    // The same values written by Prisma: the stored text of every column is the same.
    const viaPrisma = { ...fast, id: newId(), payload };
    await stack.database.prisma.dataEvent.createMany({ data: [viaPrisma] });
    const raw = async (id: string) =>
      (
        await stack.database.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
          `SELECT CAST("payload" AS TEXT) AS payload, CAST("receivedAt" AS TEXT) AS received, CAST("expiresAt" AS TEXT) AS expires FROM "DataEvent" WHERE "id" = ${stack.database.provider === 'sqlite' ? '?' : '$1'}`,
          id,
        )
      )[0];
    expect(await raw(fast.id)).toEqual(await raw(viaPrisma.id));

    // Equal times order by ID, newest first, through the listing.
    const listed = await storedEvents(site, kept.dataProviderId);
    expect(listed.map((event) => event.id)).toEqual([fast.id, viaPrisma.id].sort().reverse());
    for (const event of listed) expect(event).toMatchObject({ payload, received: fast.receivedAt.getTime(), expires: (fast.expiresAt as Date).getTime() });
  });
});

describe('signed update and removal', () => {
  it('updates with a signature over the raw body and answers the provider ID and secret', async () => {
    const provider = await register(site, { ...registration, name: 'Before' });
    const text = JSON.stringify({
      name: 'After',
      schema: { type: 'object', properties: { data: { type: 'object', properties: { odds: { type: 'number' } } } } },
      ttl: 60,
    });
    const reply = await rest(stack, 'PUT', `/dataprovider/v1/${provider.dataProviderId}`, {
      headers: { 'X-DataProvider-Signature': sign(provider.secret, text) },
      rawBody: text,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ dataProviderId: provider.dataProviderId, secret: provider.secret });
    const listing = await rest(stack, 'GET', '/dataprovider/v1/available', { headers: site.admin });
    const item = listing.body.results.find((result: { _id: string }) => result._id === provider.dataProviderId);
    expect(item).toMatchObject({ name: 'After', facts: ['data.odds'] });
    // The new schema applies to events at once.
    expect((await send(provider, JSON.stringify({ data: { odds: 1.5 } }))).status).toBe(201);
    expect((await send(provider, JSON.stringify({ data: { odds: 'high' } }))).status).toBe(400);
  });

  it('answers 401 unsigned or wrongly signed, 404 for an unknown provider, 400 for bad fields', async () => {
    const provider = await register(site, { ...registration, name: 'Guarded' });
    const text = JSON.stringify({ name: 'Taken over' });
    const path = `/dataprovider/v1/${provider.dataProviderId}`;
    expect((await rest(stack, 'PUT', path, { rawBody: text })).status).toBe(401);
    expect((await rest(stack, 'PUT', path, { headers: { 'X-DataProvider-Signature': sign('guess', text) }, rawBody: text })).status).toBe(401);
    const unknown = await rest(stack, 'PUT', `/dataprovider/v1/${'0'.repeat(24)}`, {
      headers: { 'X-DataProvider-Signature': sign(provider.secret, text) },
      rawBody: text,
    });
    expect(unknown.status).toBe(404);
    for (const body of [{ schema: { type: 12 } }, { ownerEmail: 'nope' }, { ttl: -1 }, { siteId: other.siteId }]) {
      const bad = JSON.stringify(body);
      const reply = await rest(stack, 'PUT', path, { headers: { 'X-DataProvider-Signature': sign(provider.secret, bad) }, rawBody: bad });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toContain(Object.keys(body)[0]);
    }
    const row = await stack.database.prisma.dataProvider.findUniqueOrThrow({ where: { id: provider.dataProviderId } });
    expect(row.name).toBe('Guarded');
    expect(row.siteId).toBe(site.siteId);
  });

  it('removes with a signature over the provider ID; afterwards its events are 403 and it is gone from the listing', async () => {
    const provider = await register(site, { ...registration, name: 'Leaving' });
    const path = `/dataprovider/v1/${provider.dataProviderId}`;
    expect((await rest(stack, 'DELETE', path)).status).toBe(401);
    expect((await rest(stack, 'DELETE', path, { headers: { 'X-DataProvider-Signature': sign(provider.secret, 'something else') } })).status).toBe(401);
    expect(
      (await rest(stack, 'DELETE', `/dataprovider/v1/${'0'.repeat(24)}`, { headers: { 'X-DataProvider-Signature': sign(provider.secret, '0'.repeat(24)) } }))
        .status,
    ).toBe(404);
    const removed = await rest(stack, 'DELETE', path, { headers: { 'X-DataProvider-Signature': sign(provider.secret, provider.dataProviderId) } });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true });

    expect((await send(provider, JSON.stringify({ data: { score: 1 }, meta: {} }))).status).toBe(403);
    const listing = await rest(stack, 'GET', '/dataprovider/v1/available', { headers: site.admin });
    expect(listing.body.results.map((result: { _id: string }) => result._id)).not.toContain(provider.dataProviderId);
    const text = JSON.stringify({ name: 'Back' });
    expect((await rest(stack, 'PUT', path, { headers: { 'X-DataProvider-Signature': sign(provider.secret, text) }, rawBody: text })).status).toBe(404);
  });
});

describe('tenancy', () => {
  it('hides another site’s providers and events from GraphQL', async () => {
    const theirs = await register(other, { ...registration, name: 'Private' });
    expect((await send(theirs, JSON.stringify({ data: { score: 9 }, meta: {} }))).status).toBe(201);
    const one = await graphql(stack, /* GraphQL */ `query One($id: ID!) { dataProvider(id: $id) { id } }`, { id: theirs.dataProviderId }, site.admin);
    expect(one.body.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    expect(await storedEvents(site, theirs.dataProviderId)).toEqual([]);
    const admin = await graphql(stack, /* GraphQL */ `query { dataProviders { id ownerEmail } }`, {}, site.admin);
    expect(admin.body.data.dataProviders.map((provider: { id: string }) => provider.id)).not.toContain(theirs.dataProviderId);
  });

  it('shows owner details and the schema to admins only', async () => {
    const reply = await graphql(stack, /* GraphQL */ `query { availableDataProviders { id ownerEmail } }`, {}, { 'x-service-client-id': site.siteId });
    expect(reply.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After once a provider sends more than its share, without touching other providers', async () => {
    const limited = await startTestStack({ env: { DATA_EVENT_RATE_LIMIT: '3', DATA_EVENT_RATE_WINDOW_SECONDS: '60' } });
    const owner = await createTestSite(limited);
    const registerOn = async (name: string) =>
      (await rest(limited, 'POST', '/dataprovider/v1/register', { headers: owner.admin, body: { ...registration, name } })).body as {
        dataProviderId: string;
        secret: string;
      };
    const busy = await registerOn('Busy');
    const quiet = await registerOn('Quiet');
    const text = JSON.stringify({ data: { score: 1 }, meta: {} });
    const statuses = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await send(busy, text, undefined, limited)).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    const refused = await send(busy, text, undefined, limited);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, message: expect.any(String), rule: 'data_events' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await send(quiet, text, undefined, limited)).status).toBe(201);
    // Unsigned requests do not use up a provider's share.
    expect((await send(quiet, text, 'f'.repeat(64), limited)).status).toBe(401);
    expect((await send(quiet, text, undefined, limited)).status).toBe(201);
  });
});
