/**
 * Outbound calls go only to public addresses (OUTBOUND_ALLOW_PRIVATE=false, as deployed). Every
 * non-public target form is refused when registered — webhook endpoints, streaming-provider contract
 * URLs (register and PUT), the playlist import URL — with a 400 naming the field; and a target that
 * slipped past registration (written to the database directly, or a name resolving to loopback) is
 * refused again when connecting. A trap server on 127.0.0.1 counts every request that reaches it: none
 * may. Nothing is sent anywhere but loopback, and nothing reaches loopback either. A second stack names
 * one loopback partner in OUTBOUND_ALLOW_HOSTS: exactly that host:port is reached, and the trap beside
 * it (same address, another port; or the same port under another name) still is not.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../shared/config';
import { outboundFetch } from '../../shared/outbound';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { DEADLINE_MS } from '../helpers/wait';
import { rest } from '../helpers/http';
import type { Stack } from '../../stack';

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
    const contract = await rest(stack, 'POST', '/streamprovider/v1/register', {
      headers: site.admin,
      body: { name: 'Public', urls: contractUrls('https://streams.example.test/create'), useAccount: false },
    });
    expect(contract.status).toBe(201);
    let names = 0;
    for (const url of targets()) {
      const registered = await rest(stack, 'POST', '/streamprovider/v1/register', {
        headers: site.admin,
        body: { name: `Private ${(names += 1)}`, urls: contractUrls(url), useAccount: false },
      });
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
    const endpoint = await rest(stack, 'POST', '/webhook/v1/', {
      headers: site.admin,
      body: { url: 'https://hooks.example.test/rebound', events: ['admin.channelUpdated'] },
    });
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
    const contract = await rest(stack, 'POST', '/streamprovider/v1/register', {
      headers: site.admin,
      body: { name: 'Rebound', urls: contractUrls('https://streams.example.test/create'), useAccount: false },
    });
    expect(contract.status).toBe(201);
    for (const url of [`http://localhost:${trapPort}/create`, `http://127.0.0.1:${trapPort}/create`, `http://[::1]:${trapPort}/create`]) {
      await stack.database.prisma.streamProviderContract.update({ where: { id: contract.body.id }, data: { urls: contractUrls(url) } });
      const channel = await rest(stack, 'POST', '/pages/v3', {
        headers: site.admin,
        body: {
          slug: `stream-${trapped}-${url.length}-${Date.now()}`,
          type: 'channel',
          renderers: {},
          seo: { title: 't', description: 'd', keywords: 'k' },
          data: { name: 'Stream' },
        },
      });
      expect(channel.status).toBe(200);
      const stream = await rest(stack, 'POST', '/stream/v1/', {
        headers: site.admin,
        body: { pageId: channel.body._id, contractId: contract.body.id, fallbackImageUrl: 'https://images.example.test/fallback.png' },
      });
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

describe('OUTBOUND_ALLOW_HOSTS opens exactly the named host:port', () => {
  let named: Stack;
  let namedSite: TestSite;
  let partner: Server;
  let partnerPort: number;
  const partnerCalls: string[] = [];

  beforeAll(async () => {
    partner = createServer((request, response) => {
      partnerCalls.push(request.url ?? '');
      if (request.url === '/redirect') {
        response.writeHead(302, { location: `http://127.0.0.1:${trapPort}/hook` }).end();
        return;
      }
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          ingestUrl: 'rtmp://127.0.0.1/live',
          streamKey: 'key',
          playbackUrl: 'http://127.0.0.1/hls/key.m3u8',
          providerStreamId: '3f1f8d4e-2b1a-4c3d-9e8f-0a1b2c3d4e5f',
        }),
      );
    });
    await new Promise<void>((resolve) => partner.listen(0, '127.0.0.1', resolve));
    partnerPort = (partner.address() as AddressInfo).port;
    named = await startTestStack({ env: { OUTBOUND_ALLOW_PRIVATE: 'false', OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${partnerPort}`, PROVIDER_RETRIES: '0' } });
    namedSite = await createTestSite(named);
  });
  afterAll(async () => {
    partner.closeAllConnections();
    await new Promise((resolve) => partner.close(resolve));
  });

  const partnerUrls = (base: string) => ({
    createStream: `${base}/create`,
    deleteStream: `${base}/delete`,
    deleteVod: `${base}/delete-vod`,
    startStream: `${base}/start`,
    stopStream: `${base}/stop`,
  });

  it('registers and calls a provider at the named host:port, as the URL parser writes it', async () => {
    // 127.1 is 127.0.0.1 to the URL parser, so it names the same target.
    for (const base of [`http://127.0.0.1:${partnerPort}`, `http://127.1:${partnerPort}`]) {
      const contract = await rest(named, 'POST', '/streamprovider/v1/register', {
        headers: namedSite.admin,
        body: { name: `Local ${base}`, urls: partnerUrls(base), useAccount: false },
      });
      expect(contract.status).toBe(201);
      const channel = await rest(named, 'POST', '/pages/v3', {
        headers: namedSite.admin,
        body: { slug: `local-${base.length}`, type: 'channel', renderers: {}, seo: { title: 't', description: 'd', keywords: 'k' }, data: { name: 'Local' } },
      });
      const stream = await rest(named, 'POST', '/stream/v1/', {
        headers: namedSite.admin,
        body: { pageId: channel.body._id, contractId: contract.body.id, fallbackImageUrl: 'https://images.example.test/f.png' },
      });
      expect(stream.status).toBe(201);
    }
    expect(partnerCalls.filter((path) => path === '/create')).toHaveLength(2);
    const hook = await rest(named, 'POST', '/webhook/v1/', { headers: namedSite.admin, body: { url: `http://127.0.0.1:${partnerPort}/hook`, events: ['*'] } });
    expect(hook.status).toBe(201);
  });

  it('still refuses every other non-public target: another port, another name or family for the same port', async () => {
    for (const url of [
      `http://127.0.0.1:${trapPort}/create`,
      `http://localhost:${partnerPort}/create`,
      `http://[::1]:${partnerPort}/create`,
      `http://127.0.0.2:${partnerPort}/create`,
      `http://127.0.0.1/create`,
    ]) {
      const registered = await rest(named, 'POST', '/streamprovider/v1/register', {
        headers: namedSite.admin,
        body: { name: `Other ${url}`, urls: { ...partnerUrls(`http://127.0.0.1:${partnerPort}`), createStream: url }, useAccount: false },
      });
      expectFieldRefused(registered, 'urls.createStream');
      expectFieldRefused(await rest(named, 'POST', '/webhook/v1/', { headers: namedSite.admin, body: { url, events: ['*'] } }), 'url');
    }
  });

  it('refuses at connect time what is not named, redirects from the named target included', async () => {
    const policy = { allowPrivate: false, allowHosts: named.config.outboundAllowHosts };
    const reached = await outboundFetch(`http://127.0.0.1:${partnerPort}/direct`, {}, policy);
    expect(reached.status).toBe(200);
    await reached.text();
    await expect(outboundFetch(`http://127.0.0.1:${trapPort}/`, {}, policy)).rejects.toMatchObject({ cause: { code: 'ERR_NON_PUBLIC_ADDRESS' } });
    await expect(outboundFetch(`http://localhost:${partnerPort}/`, {}, policy)).rejects.toMatchObject({ cause: { code: 'ERR_NON_PUBLIC_ADDRESS' } });
    await expect(outboundFetch(`http://127.0.0.1:${partnerPort}/redirect`, {}, policy)).rejects.toMatchObject({ cause: { code: 'ERR_NON_PUBLIC_ADDRESS' } });
    expect(partnerCalls).toContain('/redirect');
  });

  it('takes only host:port entries, normalized once at start', () => {
    const env = (value: string) => ({ OUTBOUND_ALLOW_HOSTS: value, DATA_DIR: named.config.dataDir });
    expect(loadConfig(env(' 127.1:4200, [::1]:4200 ,Provider.Example:80')).outboundAllowHosts).toEqual(['127.0.0.1:4200', '[::1]:4200', 'provider.example:80']);
    expect(loadConfig(env('')).outboundAllowHosts).toEqual([]);
    for (const bad of ['127.0.0.1', 'http://127.0.0.1:4200', '127.0.0.1:0', '127.0.0.1:70000', '[::1:4200', 'a b:1', 'user@host:1', '127.0.0.1:4200/']) {
      expect(() => loadConfig(env(bad))).toThrow(/OUTBOUND_ALLOW_HOSTS must be a comma-separated list of host:port/);
    }
  });
});
