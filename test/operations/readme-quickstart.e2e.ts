/**
 * The documents' walkthroughs as a newcomer runs them: the README's quick-start, the shell lines between
 * `<!-- quickstart:start -->` and `<!-- quickstart:end -->`, then the live chat's (`<!-- chat:start -->` …), moderating
 * a chat room (`<!-- chat-moderation:start -->` …) and the subscriptions over HTTP (`<!-- subscriptions:start -->` …)
 * of docs/live.md, a channel made from a template, a playlist imported and a Q&A room (`<!-- templates:start -->`,
 * `<!-- playlist-import:start -->`, `<!-- qa:start -->`, docs/api.md), and a paid show on one machine (`<!-- show:start -->`,
 * `<!-- show-recording:start -->`, docs/show.md: the reference provider registered signing its playback and served in
 * the background, ffmpeg pushing to it, the pass holder's signed URLs played), in the same terminal, run by bash against a
 * real server — main.ts in a process of its own, or, with STAGEGRAPH_TEST_SERVER=dist (CI, after its `npm start`),
 * dist/main.js as `npm start` runs it — with only `BASE` pointing at its port and the CLI at its database (the
 * environment a second terminal in the project folder has; the provider's ports and state folder are the test's own,
 * as its environment, and the server may call it, as docs/show.md has a reader restart it). Every answer a document shows under a line (`# {…}`)
 * is compared with the real one, and the run must end with the viewer on the leaderboard. The start-up log must
 * say where the server listens.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describeListenAddress } from '../../shared/listenAddress';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { TEST_SECRETS } from '../helpers/stack';
import { entryArgs } from '../helpers/serverProcess';
import { referenceProviderPorts, stopReferenceProviders, type ReferenceProviderPorts } from '../helpers/referenceProvider';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
/** The documents in the order a newcomer reads them: the README, then docs/ in the order of the README's map. */
const DOCUMENTS = ['README.md', ...new Set([...read('README.md').matchAll(/\]\((docs\/[\w-]+\.md)\)/g)].map((match) => match[1]))];
const TEXT = DOCUMENTS.map(read).join('\n');

/** The ```sh blocks between a section's markers (`<!-- NAME:start -->`, `<!-- NAME:end -->`), joined: exactly what a reader copies. */
function sectionLines(text: string, name: string): string[] {
  const start = text.indexOf(`<!-- ${name}:start -->`);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  if (start < 0 || end < start) throw new Error(`no document of ${DOCUMENTS.join(', ')} has a <!-- ${name}:start --> … <!-- ${name}:end --> section`);
  const blocks = [...text.slice(start, end).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  return blocks
    .join('')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** The answers the README shows (`# …` lines) as patterns: `…` stands for any text. */
const shownAnswer = (line: string) =>
  new RegExp(
    `^${line
      .slice(2)
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

let database: TestDatabase;
let dataDir: string;
let server: ChildProcess;
let serverEnv: Record<string, string>;
let listening: { msg: string; url: string; port: number; host: string };
/** YouTube as the import reads it, here: a playlist feed of YouTube's shape (the tests' fixture) at /feeds/videos.xml. */
let youtube: HttpServer;
/** The reference provider's ports and state folder: the environment `npm run provider` reads in the walkthrough. */
let provider: ReferenceProviderPorts;

beforeAll(async () => {
  youtube = createHttpServer((req, res) => {
    const known = new URL(req.url ?? '/', 'http://youtube').pathname === '/feeds/videos.xml';
    res.writeHead(known ? 200 : 404, { 'content-type': 'application/atom+xml' });
    res.end(known ? read('test/content/fixtures/playlists/youtube-feed.xml') : '');
  });
  await new Promise<void>((resolve) => youtube.listen(0, '127.0.0.1', resolve));
  const youtubeHost = `127.0.0.1:${(youtube.address() as AddressInfo).port}`;
  provider = await referenceProviderPorts();
  database = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'stagegraph-quickstart-'));
  serverEnv = {
    ...(process.env as Record<string, string>),
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, REDIS_PREFIX: `sgtest-${randomBytes(4).toString('hex')}` } : {}),
    ...TEST_SECRETS,
    // The server's differences from a reader's: YouTube's feeds are read from the local stand-in, and the
    // provider is at its test ports (docs/show.md has the reader restart it with OUTBOUND_ALLOW_HOSTS=127.0.0.1:4200).
    YOUTUBE_FEED_URL: `http://${youtubeHost}/feeds/videos.xml`,
    OUTBOUND_ALLOW_HOSTS: `${youtubeHost},127.0.0.1:${provider.httpPort}`,
  };
  // CI builds with `npm start` first (.ci/run) and runs this against what it built: exactly what `npm start`
  // serves. Elsewhere main.ts through tsx, which needs no build.
  server = spawn(process.execPath, entryArgs('main.ts'), {
    cwd: root,
    env: { ...serverEnv, PORT: '0', HOST: '127.0.0.1', SUBGRAPH_PORT_BASE: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Ready when it logs where it listens (or failed when it exits first).
  listening = await new Promise((resolve, reject) => {
    server.once('exit', (code) => reject(new Error(`the server exited with ${code} before listening`)));
    createInterface({ input: server.stdout! }).on('line', (line) => {
      const entry = line.startsWith('{') ? JSON.parse(line) : null;
      if (typeof entry?.msg === 'string' && entry.msg.startsWith('stagegraph listening')) resolve(entry);
    });
  });
}, 180_000);

afterAll(async () => {
  // The walkthrough stops its provider; a run that failed before may have left it serving.
  if (provider) spawnSync(process.execPath, [...entryArgs('provider/index.ts'), 'stop'], { cwd: root, env: { ...process.env, ...provider.env } });
  await stopReferenceProviders();
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGINT');
    await exited;
  }
  youtube?.closeAllConnections();
  await new Promise((resolve) => (youtube ? youtube.close(resolve) : resolve(undefined)));
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it('logs the address it is bound to, who can reach it, and the URL to open', () => {
  expect(listening.host).toBe('127.0.0.1');
  expect(listening.url).toBe(`http://127.0.0.1:${listening.port}`);
  expect(listening.msg).toBe(
    `stagegraph listening on 127.0.0.1:${listening.port} (loopback: this machine only); on this machine: http://127.0.0.1:${listening.port}`,
  );
  // HOST's default: every interface, said so.
  expect(describeListenAddress('0.0.0.0', 4000)).toEqual({
    bound: '0.0.0.0:4000 (all IPv4 interfaces: reachable from other machines)',
    localUrl: 'http://localhost:4000',
  });
  expect(describeListenAddress('::', 4000).bound).toBe('[::]:4000 (all interfaces, IPv6 and IPv4: reachable from other machines)');
  expect(describeListenAddress('10.0.1.11', 4000)).toEqual({ bound: '10.0.1.11:4000 (this interface only)', localUrl: 'http://10.0.1.11:4000' });
});

it('runs the README quick-start line by line: a signed-in viewer answers a trivia poll, completes a quest and is on the leaderboard; then its subscriptions over HTTP, …, and a paid show played by signed URLs', async () => {
  const commands = { bash: '--version', curl: '--version', npm: '--version', ffmpeg: '-version', nginx: '-v' };
  const missing = Object.entries(commands).filter(([command, version]) => spawnSync(command, [version], { stdio: 'ignore' }).status !== 0);
  if (missing.length) throw new Error(`the walkthroughs need ${missing.map(([command]) => command).join(', ')} on PATH (see .ci/run's apt-get install)`);
  const lines = sectionLines(TEXT, 'quickstart');
  // The chat section runs next in the same terminal, on the quick-start's site, admin and viewer.
  const chat = sectionLines(TEXT, 'chat');
  // Then moderating a chat room, with the same admin and viewer.
  const moderation = sectionLines(TEXT, 'chat-moderation');
  // The subscriptions over HTTP run in the same terminal after those, on the quick-start's site, poll and viewer.
  const subscriptions = sectionLines(TEXT, 'subscriptions');
  // Then a channel made from a template and a playlist imported from YouTube (docs/api.md), with the same admin.
  const templates = sectionLines(TEXT, 'templates');
  const playlistImport = sectionLines(TEXT, 'playlist-import');
  // Then a Q&A room (docs/api.md), with the same admin and viewer.
  const qa = sectionLines(TEXT, 'qa');
  // Then a paid show on one machine (docs/show.md): the provider, ffmpeg, the pass holder's signed URLs.
  const show = [...sectionLines(TEXT, 'show'), ...sectionLines(TEXT, 'show-recording')];
  const walkthroughs = [...chat, ...moderation, ...subscriptions, ...templates, ...playlistImport, ...qa, ...show];
  // BASE is the one thing a reader's machine and this test differ in, and the README itself defines it.
  expect(lines[0]).toBe('BASE=${BASE:-http://localhost:4000}');
  for (const line of [...lines, ...walkthroughs]) expect(line).not.toMatch(/localhost:4000\/|127\.0\.0\.1:4000/);
  const shown = [...lines, ...walkthroughs].filter((line) => line.startsWith('# ')).map(shownAnswer);
  // A live stream (curl -N) stays open until the reader stops it: here it is stopped once its first event is in
  // (waited for, up to 30 s); other curl lines run as written.
  const endStreams = [
    'curl() {',
    '  case " $* " in *" -N "*) ;; *) command curl "$@"; return ;; esac',
    '  local out pid; out=$(mktemp); command curl "$@" > "$out" & pid=$!',
    '  for _ in $(seq 600); do grep -qE \'^data: |"payload"\' "$out" && break; sleep 0.05; done',
    '  kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; cat "$out"; echo; rm -f "$out"',
    '}',
  ].join('\n');
  const script = ['set -euo pipefail', ...lines, 'echo "::vars:: $SITE $POLL $ACCOUNT"', endStreams, ...walkthroughs].join('\n');

  // A process group of its own: what it left running in the background (an encoder, when a line failed) ends with it.
  const bash = spawn('bash', ['-c', script], {
    cwd: root,
    env: { ...serverEnv, ...provider.env, BASE: listening.url },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  bash.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  bash.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise((resolve) => bash.once('close', resolve));
  const code = await new Promise<number | null>((resolve) => bash.once('exit', resolve));
  try {
    process.kill(-bash.pid!, 'SIGTERM');
  } catch {
    // nothing of it left
  }
  await closed;
  if (code !== 0) throw new Error(`the quick-start stopped with exit code ${code}:\n${stdout}\n${stderr}`);

  // The README shows the lines that carry events: not the streams' framing (blank lines, CRLF, multipart boundaries and
  // part headers) nor their keep-alives (SSE comment lines, multipart `{}` parts), whose number depends on timing.
  const framing = /^(|:(\s.*)?|--graphql(--)?|content-type: application\/json; charset=utf-8|\{\})$/;
  const printed = stdout
    .split('\n')
    .map((line) => line.replace(/\r$/, '').trim())
    .filter((line) => !framing.test(line));
  const [, siteId, pollId, accountId] = printed
    .splice(
      printed.findIndex((line) => line.startsWith('::vars:: ')),
      1,
    )[0]
    .split(' ');
  // Each answer shown in the README is the answer the line gives, in order.
  expect(printed).toHaveLength(shown.length);
  printed.forEach((line, index) => expect(line).toMatch(shown[index]));

  const board = JSON.parse(printed[lines.filter((line) => line.startsWith('# ')).length - 1]);
  expect(board).toEqual({ pagination: { limit: 10, offset: 0, totalCount: 1 }, results: [{ rank: 1, accountId, name: 'Fan', points: 2 }] });
  // And the server agrees, asked on its own.
  const viewer = { 'x-service-client-id': siteId };
  const results = await (await fetch(`${listening.url}/poll/v3/${pollId}/results`, { headers: viewer })).json();
  expect(results).toMatchObject({ pollId, type: 'trivia', open: false, total: 1, correctAnswerId: 'ada' });
}, 180_000);
