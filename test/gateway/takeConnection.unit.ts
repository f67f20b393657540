/**
 * shared/httpServer.ts `takeConnection`: a response's connection taken from Node's HTTP server once its
 * headers went out, as an upgrade is. Checked against the Node.js this runs on, since it relies on what
 * Node's server puts on a connection (a Node upgrade that changes it fails here, not in production):
 * nothing of the server is left on the socket, the socket carries what the caller writes, and the
 * client closing its side ends it.
 */
import { createServer, request, type Server } from 'node:http';
import { Socket as NetSocket, type AddressInfo, type Socket } from 'node:net';
import { takeConnection } from '../../shared/httpServer';
import { until } from '../helpers/wait';

let server: Server;
let taken: Socket | null = null;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'transfer-encoding': 'chunked', connection: 'close' });
    res.flushHeaders();
    taken = takeConnection(res);
    taken?.write('6\r\nhello\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  taken?.destroy();
  await new Promise((resolve) => server.close(resolve));
});

it('leaves a bare socket: no listener, parser or method of the HTTP server, and the caller’s chunks reach the client', async () => {
  let body = '';
  let ended = false;
  const call = request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path: '/' });
  call.on('response', (response) => {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (body += chunk));
    response.on('end', () => (ended = true));
  });
  call.end();
  await until(
    () => body,
    (text) => text === 'hello\n',
    'the first chunk',
  );
  const socket = taken as Socket;
  const names = ['data', 'end', 'close', 'drain', 'timeout', 'resume', 'pause'].flatMap((event) => socket.listeners(event).map((listener) => listener.name));
  // What stays: net's own end handler and the hand-over's (client half-close); nothing bound by the server.
  expect(names.filter((name) => name.startsWith('bound ') || /^(socketOn|onSocket|onServerResponse)/.test(name))).toEqual([]);
  expect((socket as Socket & { parser?: unknown }).parser).toBeNull();
  const methods = (target: object) => ['on', 'addListener', 'prependListener', 'setEncoding'].map((method) => (target as Record<string, unknown>)[method]);
  expect(methods(socket)).toEqual(methods(NetSocket.prototype));
  expect(Object.prototype.hasOwnProperty.call(socket, '_httpMessage') ? (socket as Socket & { _httpMessage: unknown })._httpMessage : null).toBeNull();
  socket.end('0\r\n\r\n');
  await until(
    () => ended,
    (done) => done,
    'the body’s end',
  );
  expect(body).toBe('hello\n');
});
