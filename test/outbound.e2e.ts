/**
 * Outbound calls go only to public addresses (OUTBOUND_ALLOW_PRIVATE=false, as deployed). Every
 * non-public target form is refused when registered — webhook endpoints, streaming-provider contract
 * URLs (register and PUT), the playlist import URL — with a 400 naming the field; and a target that
 * slipped past registration (written to the database directly, or a name resolving to loopback) is
 * refused again when connecting. A trap server on 127.0.0.1 counts every request that reaches it: none
 * may. Nothing is sent anywhere but loopback, and nothing reaches loopback either.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { outboundFetch } from '../shared/outbound';
import { createTestSite, startTestStack, stopAll, type TestSite } from './helpers/stack';
import { DEADLINE_MS } from './helpers/wait';
import { rest } from './helpers/http';
import type { Stack } from '../stack';

let stack: Stack;
let site: TestSite;
let trap: Server;
let trapPort: number;
let trapped = 0;

/** Every non-public form, aimed at the trap where a port matters. */
const targets = () => [
  `http://127.0.0.1:${trapPort}/hook`,
  `http://localhost:${trapPort}/hook`,
  `http://localhost.:${trapPort}/hook`,
  `http://[::1]:${trapPort}/hook`,
  `http://2130706433:${trapPort}/hook`,
  `http://0x7f000001:${trapPort}/hook`,
  `http://0177.0.0.1:${trapPort}/hook`,
  `http://127.1:${trapPort}/hook`,
  `http://[::ffff:127.0.0.1]:${trapPort}/hook`,
  `http://0.0.0.0:${trapPort}/hook`,
  'http://169.254.169.254/latest/meta-data/',
  'http://10.0.0.1/hook',
  'http://172.16.0.1/hook',
  'http://192.168.1.1/hook',
  'http://100.64.0.1/hook',
  'http://224.0.0.1/hook',
  'https://[fc00::1]/hook',
  'https://[fe80::1]/hook',
  stack.url,
];

beforeAll(async () => {
  trap = createServer((_req, res) => {
    trapped += 1;
    res.end('{}');
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  trapPort = (trap.address() as AddressInfo).port;
  stack = await startTestStack({ env: { OUTBOUND_ALLOW_PRIVATE: 'false', PROVIDER_RETRIES: '0', WEBHOOK_RETRY_BASE_MS: '60000' } });
  site = await createTestSite(stack);
});
afterAll(async () => {
  trap.closeAllConnections();
  await new Promise((resolve) => trap.close(resolve));
  await stopAll();
});
afterEach(() => {
  expect(trapped).toBe(0);
});

const contractUrls = (createStream: string) => ({
  createStream,
  deleteStream: 'https://streams.example.test/delete',
  deleteVod: 'https://streams.example.test/delete-vod',
  startStream: 'https://streams.example.test/start',
  stopStream: 'https://streams.example.test/stop',
});

function expectFieldRefused(reply: { status: number; body: { success?: boolean; message?: string } }, field: string) {
  expect(reply.status).toBe(400);
  expect(reply.body.success).toBe(false);
  expect(reply.body.message).toContain(field);
}

describe('refused when registered', () => {
  it('webhook endpoints: create and update', async () => {
    const endpoint = await rest(stack, 'POST', '/webhook/v1/', { headers: site.admin, body: { url: 'https://hooks.example.test/in', events: ['*'] } });
    expect(endpoint.status).toBe(201);
    for (const url of targets()) {
      expectFieldRefused(await rest(stack, 'POST', '/webhook/v1/', { headers: site.admin, body: { url, events: ['*'] } }), 'url');
      expectFieldRefused(await rest(stack, 'PUT', `/webhook/v1/${endpoint.body._id}`, { headers: site.admin, body: { url } }), 'url');
    }
    expect(await stack.database.prisma.webhookEndpoint.count({ where: { siteId: site.siteId } })).toBe(1);
  });

  it('streaming-provider contracts: register and PUT', async () => {
    const contract = await rest(stack, 'POST', '/streamprovider/v1/register', { headers: site.admin, body: { name: 'Public', urls: contractUrls('https://streams.example.test/create'), useAccount: false } });
    expect(contract.status).toBe(201);
    let names = 0;
    for (const url of targets()) {
      const registered = await rest(stack, 'POST', '/streamprovider/v1/register', { headers: site.admin, body: { name: `Private ${(names += 1)}`, urls: contractUrls(url), useAccount: false } });
      expectFieldRefused(registered, 'urls.createStream');
      const put = await rest(stack, 'PUT', `/streamprovider/v1/${contract.body.id}`, {
        headers: { Authorization: `Bearer ${contract.body.authorization}` },
        body: { urls: { stopStream: url } },
      });
      expectFieldRefused(put, 'urls.stopStream');
    }
    const stored = await stack.database.prisma.streamProviderContract.findUniqueOrThrow({ where: { id: contract.body.id } });
    expect((stored.urls as Record<string, string>).stopStream).toBe('https://streams.example.test/stop');
  });

  it('the playlist import, before any connection', async () => {
    for (const url of targets()) {
      expectFieldRefused(await rest(stack, 'POST', '/playlist/v1/external/import/videoplatform', { headers: site.admin, body: { url } }), 'url');
    }
  });
});

describe('refused again when connecting', () => {
  it('a webhook endpoint whose stored URL is not public fails its delivery without a connection', async () => {
    const endpoint = await rest(stack, 'POST', '/webhook/v1/', { headers: site.admin, body: { url: 'https://hooks.example.test/rebound', events: ['admin.channelUpdated'] } });
    expect(endpoint.status).toBe(201);
    // As if the name now resolved to loopback: the stored URL bypasses the registration check.
    await stack.database.prisma.webhookEndpoint.update({ where: { id: endpoint.body._id }, data: { url: `http://localhost:${trapPort}/hook` } });
    const page = await rest(stack, 'POST', '/pages/v3', {
      headers: site.admin,
      body: { slug: 'rebound', type: 'channel', renderers: {}, seo: { title: 't', description: 'd', keywords: 'k' }, data: { name: 'Rebound' } },
    });
    expect(page.status).toBe(200);
    const deadline = Date.now() + DEADLINE_MS;
    let delivery = null;
    while (Date.now() < deadline) {
      delivery = await stack.database.prisma.webhookDelivery.findFirst({ where: { endpointId: endpoint.body._id, attempts: { gt: 0 } } });
      if (delivery) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(delivery).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: 'the endpoint is not a public address' });
  });

  it('a contract URL that is not public makes the provider call fail with 502, unretried and unsent', async () => {
    const contract = await rest(stack, 'POST', '/streamprovider/v1/register', { headers: site.admin, body: { name: 'Rebound', urls: contractUrls('https://streams.example.test/create'), useAccount: false } });
    expect(contract.status).toBe(201);
    for (const url of [`http://localhost:${trapPort}/create`, `http://127.0.0.1:${trapPort}/create`, `http://[::1]:${trapPort}/create`]) {
      await stack.database.prisma.streamProviderContract.update({ where: { id: contract.body.id }, data: { urls: contractUrls(url) } });
      const channel = await rest(stack, 'POST', '/pages/v3', {
        headers: site.admin,
        body: { slug: `stream-${trapped}-${url.length}-${Date.now()}`, type: 'channel', renderers: {}, seo: { title: 't', description: 'd', keywords: 'k' }, data: { name: 'Stream' } },
      });
      expect(channel.status).toBe(200);
      const stream = await rest(stack, 'POST', '/stream/v1/', { headers: site.admin, body: { pageId: channel.body._id, contractId: contract.body.id, fallbackImageUrl: 'https://images.example.test/fallback.png' } });
      expect(stream.status).toBe(502);
      expect(stream.body.message).toMatch(/public address/);
      expect(stream.body.message).not.toContain(String(trapPort));
    }
  });

  it('the outbound client refuses names and literals resolving to non-public addresses, redirects included', async () => {
    const policy = { allowPrivate: false };
    for (const url of [`http://localhost:${trapPort}/`, `http://127.0.0.1:${trapPort}/`, `http://[::1]:${trapPort}/`, `http://2130706433:${trapPort}/`]) {
      await expect(outboundFetch(url, {}, policy)).rejects.toMatchObject({ cause: { code: 'ERR_NON_PUBLIC_ADDRESS' } });
    }
    // Allowed private targets (development): the same client reaches the trap; counted, then reset.
    const allowed = await outboundFetch(`http://localhost:${trapPort}/`, {}, { allowPrivate: true });
    expect(allowed.status).toBe(200);
    await allowed.text();
    expect(trapped).toBe(1);
    trapped = 0;
  });
});
