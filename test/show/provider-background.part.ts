/**
 * `npm run provider -- start` / `stop` (provider/background.ts), as docs/show.md runs a show in one terminal:
 * start returns once the provider serves (nginx taking RTMP and playback), detached, its pid and log in its state
 * folder; a second start is refused while it runs; stop ends it with nginx and says whether anything was
 * running; a provider that cannot start (its RTMP port taken) fails the command with its log's end and leaves
 * nothing running.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { referenceProviderPorts, stopReferenceProviders, type ReferenceProviderPorts } from '../helpers/referenceProvider';
import { entryArgs } from '../helpers/serverProcess';

const root = join(__dirname, '..', '..');
/** Every provider's ports this file used: whatever a failed expectation left serving is stopped at the end. */
const used = new Set<ReferenceProviderPorts>();
const provider = (ports: ReferenceProviderPorts, command: string) =>
  used.add(ports) &&
  spawnSync(process.execPath, [...entryArgs('provider/index.ts'), command], {
    cwd: root,
    env: { ...process.env, ...ports.env },
    encoding: 'utf8',
  });
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const answers = async (url: string) => (await fetch(url).catch(() => null))?.status ?? null;

afterAll(async () => {
  for (const ports of used) provider(ports, 'stop');
  await stopReferenceProviders();
});

it('starts in the background once it serves, refuses a second start, and stops with its nginx', async () => {
  const ports = await referenceProviderPorts();
  const started = provider(ports, 'start');
  expect(started.status).toBe(0);
  const answer = JSON.parse(started.stdout);
  expect(answer).toEqual({
    pid: expect.any(Number),
    port: ports.httpPort,
    playbackPort: ports.playbackPort,
    rtmpPort: ports.rtmpPort,
    log: join(ports.stateDir, 'provider.log'),
  });
  // Serving when start returns: its HTTP server and nginx's playback answer at once.
  expect(await answers(`http://127.0.0.1:${ports.httpPort}/health`)).toBe(200);
  expect(await answers(`http://127.0.0.1:${ports.playbackPort}/`)).toBe(404);
  expect(readFileSync(join(ports.stateDir, 'provider.pid'), 'utf8').trim()).toBe(String(answer.pid));

  const again = provider(ports, 'start');
  expect(again.status).toBe(1);
  expect(again.stderr).toContain(`the provider already serves from ${ports.stateDir} (pid ${answer.pid}); stop it with: npm run provider -- stop`);

  const stopped = provider(ports, 'stop');
  expect(stopped.status).toBe(0);
  expect(JSON.parse(stopped.stdout)).toEqual({ stopped: true });
  expect(alive(answer.pid)).toBe(false);
  expect(existsSync(join(ports.stateDir, 'provider.pid'))).toBe(false);
  // nginx went with it: its playback port no longer answers.
  expect(await answers(`http://127.0.0.1:${ports.playbackPort}/`)).toBeNull();

  expect(JSON.parse(provider(ports, 'stop').stdout)).toEqual({ stopped: false });
}, 60_000);

it('fails the start with the end of its log when it cannot serve, and leaves nothing running', async () => {
  const ports = await referenceProviderPorts();
  const taken: Server = createServer();
  await new Promise<void>((resolve) => taken.listen(ports.rtmpPort, '127.0.0.1', resolve));
  try {
    const started = provider(ports, 'start');
    expect(started.status).toBe(1);
    expect(started.stderr).toContain('the provider stopped before serving (exit code 1)');
    expect(started.stderr).toContain(`nginx did not start taking RTMP on port ${ports.rtmpPort}`);
    expect(existsSync(join(ports.stateDir, 'provider.pid'))).toBe(false);
    expect(await answers(`http://127.0.0.1:${ports.httpPort}/health`)).toBeNull();
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
}, 60_000);
