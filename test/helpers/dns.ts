/**
 * DNS servers for tests, on loopback: Debian's dnsmasq serving the TXT records a test gives (started
 * again on the same port to change them, as dnsmasq reads TXT records only at start), and a silent server
 * that reads every question and never answers (a DNS timeout). .ci/run installs dnsmasq.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { promises as dns } from 'node:dns';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/services';
import { until } from './wait';

/** TXT records by name; each value is one record. */
export type TxtRecords = Record<string, readonly string[]>;

export interface TestDns {
  /** `127.0.0.1:port`, as DNS_SERVERS takes it. */
  server: string;
  /** Serves exactly these records from now on (dnsmasq is started again with them). */
  setRecords(records: TxtRecords): Promise<void>;
  /** Looks a name's TXT records up at this server, as the service does. */
  txt(name: string): Promise<string[]>;
  close(): Promise<void>;
}

/** A TXT value as dnsmasq's configuration takes it: quoted strings of at most 255 bytes (RFC 1035 3.3.14). */
function txtValue(value: string): string {
  if (/["\\\r\n]/.test(value)) throw new Error(`test TXT values hold no quotes, backslashes or line breaks: ${value}`);
  const strings: string[] = [];
  for (let at = 0; at < value.length; at += 255) strings.push(`"${value.slice(at, at + 255)}"`);
  return strings.join(',');
}

/**
 * A port free for dnsmasq, which takes it on UDP and TCP alike: below the ephemeral range (where no client
 * socket or port-0 server of another test takes one meanwhile), free on TCP, and bindable on UDP.
 */
async function freeDnsPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    const socket = createSocket('udp4');
    const bound = await new Promise<boolean>((resolve) => {
      socket.once('error', () => resolve(false));
      socket.bind(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise<void>((resolve) => {
      try {
        socket.close(() => resolve());
      } catch {
        resolve(); // never bound: nothing to close
      }
    });
    if (bound) return port;
  }
}

/** Starts dnsmasq on a free port with these records; names under .test that it does not hold are NXDOMAIN. */
export async function startTestDns(records: TxtRecords = {}): Promise<TestDns> {
  const port = await freeDnsPort();
  const dir = mkdtempSync(join(tmpdir(), 'stagegraph-dns-'));
  const resolver = new dns.Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  let child: ChildProcess | null = null;
  let generation = 0;

  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };

  const start = async (served: TxtRecords) => {
    await stop();
    generation += 1;
    // A record of the generation tells the new process's answers from a question answered before.
    const all: TxtRecords = { ...served, 'generation.dns.test': [String(generation)] };
    const lines = Object.entries(all).flatMap(([name, values]) => values.map((value) => `txt-record=${name},${txtValue(value)}`));
    const confFile = join(dir, `dnsmasq-${generation}.conf`);
    writeFileSync(confFile, `${lines.join('\n')}\n`);
    const output: string[] = [];
    const started = spawn(
      'dnsmasq',
      [
        '--no-daemon',
        `--port=${port}`,
        '--listen-address=127.0.0.1',
        '--bind-interfaces',
        '--no-resolv',
        '--no-hosts',
        '--pid-file=',
        '--local=/test/',
        `--conf-file=${confFile}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    started.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const failed = new Promise<never>((_resolve, reject) => {
      started.once('error', (error: NodeJS.ErrnoException) =>
        reject(new Error(error.code === 'ENOENT' ? 'dnsmasq is not installed: apt-get install dnsmasq (Debian), as .ci/run does' : error.message)),
      );
      started.once('exit', (code) => reject(new Error(`dnsmasq exited (${code}): ${output.join('')}`)));
    });
    failed.catch(() => undefined);
    child = started;
    const ready = until(
      () => resolver.resolveTxt('generation.dns.test'),
      (answer) => answer[0]?.join('') === String(generation),
      `dnsmasq answering on port ${port}`,
      15_000,
    );
    await Promise.race([ready, failed]);
  };

  await start(records);
  return {
    server: `127.0.0.1:${port}`,
    setRecords: start,
    txt: async (name) => (await resolver.resolveTxt(name)).map((strings) => strings.join('')),
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A DNS server that never answers: a UDP socket on loopback that reads every question and drops it. */
export async function startSilentDns(): Promise<{ server: string; questions: () => number; close(): Promise<void> }> {
  const socket = createSocket('udp4');
  let questions = 0;
  socket.on('message', () => {
    questions += 1;
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    questions: () => questions,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
