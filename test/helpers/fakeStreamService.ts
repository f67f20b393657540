/**
 * A fake streaming service for the reference provider's own tests: a real HTTP server that answers the
 * provider's `register` and records every other call (webhooks, VOD deliveries) with when it arrived; it can
 * refuse the next calls with 503, as a service briefly away does. `providerWithStream` registers a reference
 * provider with it, serves it and creates one stream.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { referenceProviderPorts, registerReferenceProvider, serveReferenceProvider } from './referenceProvider';

export interface Received {
  path: string;
  body: { type?: string; id?: string; time?: number; streamId?: string; url?: string; durationSeconds?: number; liveBroadcastId?: string };
  at: number;
  authorization: string | undefined;
  status: number;
}

export interface FakeStreamService {
  url: string;
  /** The service's `authorization` GUID, as register answers it. */
  authorization: string;
  received: Received[];
  /** Answers the next `count` calls with 503. */
  refuse(count: number): void;
  close(): Promise<void>;
}

export async function startFakeStreamService(): Promise<FakeStreamService> {
  const received: Received[] = [];
  const authorization = '6f9c1d2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f';
  let refuseNext = 0;
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      if (request.url === '/streamprovider/v1/register') {
        response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'fake-contract', authorization }));
        return;
      }
      const status = refuseNext > 0 ? 503 : 200;
      refuseNext = Math.max(0, refuseNext - 1);
      received.push({ path: request.url ?? '', body: JSON.parse(text), at: Date.now(), authorization: request.headers.authorization, status });
      response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorization,
    received,
    refuse: (count) => (refuseNext = count),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A provider registered with the fake service, serving, and one stream of it (its image at `fallbackImageUrl`). */
export async function providerWithStream(service: FakeStreamService, env: Record<string, string>, fallbackImageUrl = 'https://images.example.test/f.png') {
  const own = await referenceProviderPorts(env);
  const registered = await registerReferenceProvider(own, { service: service.url, siteId: 'site', developerKey: 'key' });
  if (JSON.parse(registered.stdout).contractId !== 'fake-contract') throw new Error(`register printed ${registered.stdout}`);
  const running = await serveReferenceProvider(own);
  const call = async (operation: string, body: object) => {
    const response = await fetch(`${running.url}/v1/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${service.authorization}` },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`${operation} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as Record<string, string>;
  };
  const created = await call('createStream', { title: 'fake', fallbackImageUrl });
  const of = () => service.received.filter((entry) => (entry.body.id ?? entry.body.streamId) === created.providerStreamId);
  return {
    call,
    created,
    of,
    types: () =>
      of()
        .filter((entry) => entry.status === 200 && entry.body.type)
        .map((entry) => entry.body.type),
  };
}
