/**
 * What the provider keeps across restarts, in its state folder: its registration with the service
 * (`registration.json`) and its streams, recordings and undelivered calls to the service
 * (`streams.json`). Both are written whole and atomically (a temporary file renamed over the old one)
 * with mode 0600: they hold the service's Bearer token and the stream keys.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PlaybackKey } from '../shared/playbackSigning';

/** What `register` kept: where the service is and the token both sides present. */
export interface Registration {
  serviceUrl: string;
  siteId: string;
  contractId: string;
  /** The service's `authorization` GUID: Bearer of the provider's calls and of the service's calls to it. */
  authorization: string;
  /** The signed-playback key the registration's answer carried (PROVIDER_SIGNED_PLAYBACK); absent: none. */
  playbackKey?: PlaybackKey;
}

/**
 * Where a stream's broadcast is in the seed's webhook order (connected, active, disconnected, idle);
 * `offline` before the first encoder and after `idle`.
 */
export type StreamPhase = 'offline' | 'connected' | 'active' | 'disconnected';

/** One live HLS fragment copied into a recording. */
export interface RecordedSegment {
  /** File name inside the recording's folder. */
  file: string;
  durationSeconds: number;
  /** The encoder reconnected before this fragment: players must reset their decoder. */
  discontinuity: boolean;
  /** The live fragment it was copied from, so a live clip finds the live window on the recording's timeline. */
  live?: string;
}

/** The recording a startStream began, until stopStream ends it. */
export interface Recording {
  liveBroadcastId: string;
  startedAt: number;
  segments: RecordedSegment[];
  /** The live manifest's fragments at the last look, already handled: those present at the start are not recorded. */
  seen: string[];
  /** The encoder connection of the last recorded fragment. */
  lastPublish: number;
}

/** A platform the stream is relayed to while live (simulcast, ours: provider/simulcast.ts). */
export interface SimulcastTargetSpec {
  name: string;
  /** rtmp:// or rtmps:// of the platform's ingest; the key is appended as the stream name. */
  url: string;
  streamKey: string;
}

export interface ProviderStream {
  /** providerStreamId (GUID): the service's `id` in every later call. */
  id: string;
  title: string;
  fallbackImageUrl: string;
  streamKey: string;
  /**
   * Name of the stream's live HLS in its public URL. nginx names the files after the key; the provider
   * serves them under this name instead, as the playback URL must not reveal the key that lets one publish.
   */
  playbackName: string;
  /** false after deleteStream: nginx refuses the key and drops its encoder. */
  ingestEnabled: boolean;
  phase: StreamPhase;
  /** Counts the encoder's connections, so fragments of two connections are told apart. */
  publishes: number;
  createdAt: number;
  recording: Recording | null;
  /** Played only through signed URLs (createStream's `playbackPolicy: "signed"`): its plain live and recording URLs are 403. */
  signedOnly?: boolean;
  /** Where the stream is relayed to while an encoder publishes (createStream, setSimulcastTargets). */
  simulcastTargets?: SimulcastTargetSpec[];
}

/** A delivered recording, served under /vod/<id>/ until deleteVod. */
export interface Vod {
  id: string;
  streamId: string;
  liveBroadcastId: string;
  durationSeconds: number;
  createdAt: number;
  /** A clip's source VOD (provider/clips.ts); absent for a recording and for a clip of the live window. */
  clipOf?: string;
}

/** A call to the service not yet answered with 200: sent again with backoff, in order per stream. */
export interface Delivery {
  id: string;
  streamId: string;
  /** Path under the service URL: /stream/v1/webhook or /video/v3/vod. */
  path: string;
  body: object;
  /** The queue it waits in, in order (default: the stream's); simulcast reports wait in their own. */
  lane?: string;
  attempts: number;
  nextAttemptAt: number;
}

export interface ProviderData {
  streams: Record<string, ProviderStream>;
  vods: Record<string, Vod>;
  outbox: Delivery[];
}

/** Writes `text` to `file` whole or not at all, readable by the owner only. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  await rename(temporary, file);
}

/** The state folder's files, read once at start; every change is saved before the provider answers. */
export class ProviderState {
  readonly data: ProviderData;
  private saving: Promise<void> = Promise.resolve();

  private constructor(
    readonly dir: string,
    data: ProviderData,
  ) {
    this.data = data;
  }

  static async open(dir: string): Promise<ProviderState> {
    await mkdir(dir, { recursive: true });
    // nginx's workers (nobody when started by root) must reach the HLS folder inside; the files that
    // hold secrets stay 0600.
    await chmod(dir, 0o755);
    const file = join(dir, 'streams.json');
    const data = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ProviderData) : { streams: {}, vods: {}, outbox: [] };
    return new ProviderState(dir, data);
  }

  /** Saves the current data; saves run one after another, so the last one written is the newest. */
  save(): Promise<void> {
    const next = this.saving.then(() => writeAtomically(join(this.dir, 'streams.json'), JSON.stringify(this.data)));
    this.saving = next.catch(() => undefined);
    return next;
  }

  streamByKey(streamKey: string): ProviderStream | undefined {
    return Object.values(this.data.streams).find((stream) => stream.streamKey === streamKey);
  }

  streamByPlaybackName(playbackName: string): ProviderStream | undefined {
    return Object.values(this.data.streams).find((stream) => stream.playbackName === playbackName);
  }
}

const registrationFile = (dir: string) => join(dir, 'registration.json');

/** The registration kept by `register`, or null before it. */
export function readRegistration(dir: string): Registration | null {
  const file = registrationFile(dir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Registration) : null;
}

/** Keeps the registration (0600). */
export async function writeRegistration(dir: string, registration: Registration): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeAtomically(registrationFile(dir), JSON.stringify(registration, null, 2));
}
