/**
 * Simulcast (ours; docs/show.md, "Simulcast"): while a stream has an encoder, the provider relays it to each of
 * the stream's targets (other platforms' RTMP ingest) without re-encoding — one ffmpeg per target, `-c copy`
 * from nginx's own RTMP application on loopback (provider/nginx.ts lets only this machine play it). A target
 * that fails is retried with doubling backoff and never touches the show or the other targets. Each target's
 * state (connecting, live, failed with a reason, idle once the encoder left) goes to the service as a
 * `simulcast` webhook, in its own queue beside the seed's connected/active/… order (provider/deliveries.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../shared/logger';
import type { ProviderConfig } from './config';
import type { ServiceDeliveries } from './deliveries';
import type { ProviderState, ProviderStream, SimulcastTargetSpec } from './state';

/** Where a target's relay is. */
export type SimulcastState = 'idle' | 'connecting' | 'live' | 'failed';

/** A target's state as setSimulcastTargets answers it. */
export interface SimulcastTargetReport {
  name: string;
  state: SimulcastState;
  reason: string | null;
}

const MAX_TARGETS = 5;
/** The RTMP argument that marks the provider's own relays when nginx asks whether a player may go on (on_update). */
export const RELAY_ARGUMENT = 'simulcast';
/** The most of ffmpeg's error output kept for a reason. */
const REASON_MAX = 300;

/** Bad input for the service's call: the API answers 400 with the message. */
class SimulcastInputError extends Error {
  readonly status = 400;
}

const isRtmpUrl = (value: unknown): value is string => typeof value === 'string' && value.length <= 2000 && /^rtmps?:\/\/[^\s/]+(\/\S*)?$/i.test(value);
const sized = (value: unknown, max: number): value is string => typeof value === 'string' && value.length >= 1 && value.length <= max;

/**
 * The `simulcastTargets` of a createStream or setSimulcastTargets body: absent is none; otherwise at most 5
 * targets of a unique name (1..60), an rtmp(s) URL and a key (1..500). The service checked their addresses.
 */
export function simulcastTargetsOf(body: unknown): SimulcastTargetSpec[] {
  const given = (body as { simulcastTargets?: unknown } | null)?.simulcastTargets;
  if (given === undefined || given === null) return [];
  if (!Array.isArray(given) || given.length > MAX_TARGETS) throw new SimulcastInputError(`simulcastTargets must be a list of at most ${MAX_TARGETS} targets`);
  const names = new Set<string>();
  return given.map((target: Record<string, unknown> | null, index) => {
    const field = `simulcastTargets[${index}]`;
    if (!sized(target?.name, 60) || names.has(target.name)) throw new SimulcastInputError(`${field}.name must be 1 to 60 characters, unique in the list`);
    if (!isRtmpUrl(target.url)) throw new SimulcastInputError(`${field}.url must be rtmp:// or rtmps://`);
    if (!sized(target.streamKey, 500)) throw new SimulcastInputError(`${field}.streamKey must be 1 to 500 characters`);
    names.add(target.name);
    return { name: target.name, url: target.url, streamKey: target.streamKey };
  });
}

/** One target's relay of one stream. */
interface Relay {
  streamId: string;
  target: SimulcastTargetSpec;
  state: SimulcastState;
  reason: string | null;
  child: ChildProcess | null;
  /** Failures in a row: the next retry waits base × 2^failures. */
  failures: number;
  retry: NodeJS.Timeout | null;
  stopped: boolean;
}

type RelaySettings = Pick<ProviderConfig, 'rtmpPort' | 'rtmpListenHost' | 'pollMs' | 'simulcastRetryBaseMs' | 'simulcastRetryMaxMs'>;

const relayKey = (streamId: string, name: string) => `${streamId}\u0000${name}`;
const sameTarget = (a: SimulcastTargetSpec, b: SimulcastTargetSpec) => a.url === b.url && a.streamKey === b.streamKey;

/** A stream relays while an encoder publishes to it. */
const relaying = (stream: ProviderStream) => stream.ingestEnabled && (stream.phase === 'connected' || stream.phase === 'active');

export class SimulcastRelays {
  /** Known to this process only: nginx hands it back in on_update, no other player can guess it. */
  private readonly secret = randomBytes(18).toString('base64url');
  private readonly relays = new Map<string, Relay>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly state: ProviderState,
    private readonly deliveries: ServiceDeliveries,
    private readonly config: RelaySettings,
    private readonly logger: Logger,
  ) {}

  /** Looks at the streams every PROVIDER_POLL_MS: relays start as an encoder connects and stop as it leaves. */
  start(): void {
    const loop = () => {
      this.sync();
      this.timer = setTimeout(loop, this.config.pollMs);
    };
    this.timer = setTimeout(loop, this.config.pollMs);
  }

  /** Stops every relay (the provider is going away; the targets' states stay as last reported). */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.all([...this.relays.values()].map((relay) => this.end(relay)));
    this.relays.clear();
  }

  /** Whether an on_update carries the relays' secret: nginx asks about players too, and drops those refused. */
  isOwn(argument: unknown): boolean {
    return typeof argument === 'string' && argument === this.secret;
  }

  /** The stream's targets and where each is now, in the stream's order. */
  reportsOf(stream: ProviderStream): SimulcastTargetReport[] {
    return (stream.simulcastTargets ?? []).map((target) => {
      const relay = this.relays.get(relayKey(stream.id, target.name));
      return { name: target.name, state: relay?.state ?? 'idle', reason: relay?.reason ?? null };
    });
  }

  /** Brings the relays in line with the streams: one per target of a stream with an encoder, none else. */
  sync(): void {
    const wanted = new Map<string, { stream: ProviderStream; target: SimulcastTargetSpec }>();
    for (const stream of Object.values(this.state.data.streams)) {
      if (!relaying(stream)) continue;
      for (const target of stream.simulcastTargets ?? []) wanted.set(relayKey(stream.id, target.name), { stream, target });
    }
    for (const [key, relay] of this.relays) {
      const want = wanted.get(key);
      if (want && sameTarget(want.target, relay.target)) continue;
      this.relays.delete(key);
      void this.end(relay);
      // A target still listed (the stream left the air) is idle now; a removed or changed one is the service's news.
      const stream = this.state.data.streams[relay.streamId];
      if (!want && stream?.simulcastTargets?.some((target) => target.name === relay.target.name)) this.report(relay, 'idle', null);
    }
    for (const [key, { stream, target }] of wanted) {
      if (this.relays.has(key)) continue;
      const relay: Relay = { streamId: stream.id, target, state: 'idle', reason: null, child: null, failures: 0, retry: null, stopped: false };
      this.relays.set(key, relay);
      this.run(relay, stream.streamKey);
    }
  }

  /** Starts the relay's ffmpeg; its progress makes the target live, its exit failed (and a retry planned). */
  private run(relay: Relay, sourceKey: string): void {
    if (relay.stopped) return;
    // A retry of a failed target stays failed (with its reason) until it is live again: no flapping.
    if (relay.state !== 'failed') this.report(relay, 'connecting', null);
    const host = this.config.rtmpListenHost === '0.0.0.0' || this.config.rtmpListenHost === '::' ? '127.0.0.1' : this.config.rtmpListenHost;
    const source = `rtmp://${host}:${this.config.rtmpPort}/live/${sourceKey}?${RELAY_ARGUMENT}=${this.secret}`;
    const destination = `${relay.target.url.replace(/\/+$/, '')}/${relay.target.streamKey}`;
    const child = spawn(
      'ffmpeg',
      ['-nostdin', '-loglevel', 'error', '-progress', 'pipe:1', '-stats_period', '0.5', '-i', source, '-c', 'copy', '-f', 'flv', destination],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    relay.child = child;
    // Neither key may reach a reason, a log line or the service.
    const secretFree = (text: string) => text.replaceAll(relay.target.streamKey, '…').replaceAll(sourceKey, '…').replaceAll(this.secret, '…');
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (relay.state === 'live') return;
      // -progress: key=value lines every half second; frames or time copied out mean the target takes the stream.
      const copied = /^(frame=[1-9]|out_time_us=[1-9])/m.test(chunk.toString());
      if (!copied) return;
      relay.failures = 0;
      this.report(relay, 'live', null);
    });
    child.once('error', (error) => (errors += error.message));
    child.once('close', (code, signal) => {
      relay.child = null;
      if (relay.stopped) return;
      const last = secretFree(errors.trim().split('\n').pop() ?? '').trim();
      const reason = (last || `the relay ended (${signal ?? `exit ${code}`})`).slice(0, REASON_MAX);
      const waitMs = Math.min(this.config.simulcastRetryMaxMs, this.config.simulcastRetryBaseMs * 2 ** relay.failures);
      relay.failures += 1;
      this.logger.warn({ streamId: relay.streamId, target: relay.target.name, reason, retryInMs: waitMs }, 'a simulcast target failed');
      this.report(relay, 'failed', reason);
      relay.retry = setTimeout(() => {
        relay.retry = null;
        const stream = this.state.data.streams[relay.streamId];
        if (stream) this.run(relay, stream.streamKey);
      }, waitMs);
    });
  }

  /** Stops a relay's ffmpeg and its retry; resolves once it exited. */
  private async end(relay: Relay): Promise<void> {
    relay.stopped = true;
    if (relay.retry) clearTimeout(relay.retry);
    const child = relay.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await closed;
    clearTimeout(killer);
  }

  /** Moves a relay's state and tells the service, when it changed. */
  private report(relay: Relay, state: SimulcastState, reason: string | null): void {
    if (relay.state === state && relay.reason === reason) return;
    relay.state = state;
    relay.reason = reason;
    this.deliveries
      .simulcast(relay.streamId, { name: relay.target.name, state, reason })
      .catch((error: Error) => this.logger.error({ err: error }, 'could not queue a simulcast report'));
  }
}
