/**
 * The reference provider (provider/) as a test runs it: real child processes through its script — the
 * `register` command against a stack, then the server, which starts nginx with its RTMP module — on free
 * ports with a throwaway state folder; and ffmpeg pushing a test pattern to it over RTMP. Everything
 * started here is stopped by stopReferenceProviders() (provider, nginx with it, encoders).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../scripts/services';
import { liveEncoderArgs, testPatternInputs } from '../../scripts/testPattern';
import { eventually } from './wait';
import { entryArgs } from './serverProcess';

const root = join(__dirname, '..', '..');
const run = promisify(execFile);
const children = new Set<ChildProcess>();
const stateDirs = new Set<string>();

/**
 * A port nothing listens on, for nginx and the provider, which cannot take port 0 (the provider's URLs
 * carry its ports): below the ephemeral range, so no server started meanwhile on port 0 (the stack's,
 * another test file's) nor a client socket can be given it before the provider binds it.
 */
export { freePort };

export interface ReferenceProviderPorts {
  httpPort: number;
  rtmpPort: number;
  /** nginx's playback port: the live HLS and recordings viewers play. */
  playbackPort: number;
  stateDir: string;
  /** The provider's environment: what the lead's other tests pass to start one the same way. */
  env: Record<string, string>;
}

/** Ports and a state folder for a provider; a stack's OUTBOUND_ALLOW_HOSTS names `127.0.0.1:<httpPort>`. */
export async function referenceProviderPorts(extra: Record<string, string> = {}): Promise<ReferenceProviderPorts> {
  const httpPort = await freePort();
  const rtmpPort = await freePort();
  const playbackPort = await freePort();
  const stateDir = mkdtempSync(join(tmpdir(), 'stagegraph-provider-'));
  stateDirs.add(stateDir);
  const env = {
    PROVIDER_PORT: String(httpPort),
    RTMP_PORT: String(rtmpPort),
    PROVIDER_PLAYBACK_PORT: String(playbackPort),
    PROVIDER_STATE_DIR: stateDir,
    PROVIDER_PUBLIC_HOST: '127.0.0.1',
    PROVIDER_LISTEN_HOST: '127.0.0.1',
    RTMP_LISTEN_HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    // No fallback picture unless a test asks for it: the tests of the webhooks' order end a show in seconds.
    PROVIDER_RECONNECT_WINDOW_MS: '0',
    ...extra,
  };
  return { httpPort, rtmpPort, playbackPort, stateDir, env };
}

/** The provider's process: its source through tsx, or its build in CI (test/helpers/serverProcess.ts). */
const providerArgs = (args: string[]) => [...entryArgs('provider/index.ts'), ...args];

/** `npm run provider -- register …` as a process: its stdout, stderr and exit code. */
export async function registerReferenceProvider(
  ports: ReferenceProviderPorts,
  args: { service: string; siteId: string; developerKey: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      providerArgs(['register', '--service', args.service, '--site', args.siteId, '--developer-key', args.developerKey]),
      {
        cwd: root,
        env: { ...process.env, ...ports.env },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Ends a child and waits for it (SIGTERM lets the provider stop nginx; SIGKILL is an encoder that vanishes). */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

export interface RunningReferenceProvider {
  process: ChildProcess;
  /** http://127.0.0.1:<httpPort> */
  url: string;
  /** http://127.0.0.1:<playbackPort>: nginx, serving what viewers play. */
  playbackUrl: string;
  /** What it logged on stderr (warnings and errors). */
  output(): string;
}

/** `npm run provider` as a process; resolves once it answers /health and nginx answers on the playback port. */
export async function serveReferenceProvider(ports: ReferenceProviderPorts): Promise<RunningReferenceProvider> {
  const child = track(spawn(process.execPath, providerArgs([]), { cwd: root, env: { ...process.env, ...ports.env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${ports.httpPort}`;
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`the provider exited: ${output}`);
    return (await fetch(`${url}/health`)).ok;
  }, 'the reference provider answers /health');
  const playbackUrl = `http://127.0.0.1:${ports.playbackPort}`;
  // nginx starts after the provider's server listens: its playback answers (404 at the root) once it runs.
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`the provider exited: ${output}`);
    return (await fetch(playbackUrl).catch(() => null))?.status === 404;
  }, "the reference provider's nginx serves playback");
  return { process: child, url, playbackUrl, output: () => output };
}

/** ffmpeg pushing a 320x240 test pattern with a tone, in real time, to `<ingestUrl>/<streamKey>`. */
export function pushTestPattern(ingestUrl: string, streamKey: string): ChildProcess {
  return track(
    spawn('ffmpeg', ['-loglevel', 'error', '-nostdin', ...testPatternInputs(), ...liveEncoderArgs(), '-f', 'flv', `${ingestUrl}/${streamKey}`], {
      stdio: 'ignore',
    }),
  );
}

/** The exit code of a child once it ends. */
export const exitOf = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once('exit', (code) => resolve(code)));

/** Stops every encoder and provider started here (each provider stops its nginx), then removes their state. */
export async function stopReferenceProviders(): Promise<void> {
  await Promise.all([...children].map((child) => stopChild(child)));
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
  stateDirs.clear();
}
