/**
 * A stream's broadcasts as the seed orders them: the encoder connecting (nginx's on_publish) gives
 * `connected`; its live manifest gaining fragments gives `active`; the encoder leaving
 * (on_publish_done) gives `disconnected`, and the stream's fallback picture plays for the reconnect
 * window (provider/fallback.ts); the manifest gone or no longer updated since the encoder left and the
 * window passed gives `idle`. A stream moves through those phases in that order only, so the webhooks do too.
 * While a stream records (startStream → stopStream), every fragment that appears in its live
 * manifest is copied into the recording's folder; stopStream makes those copies a VOD playlist.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../shared/logger';
import type { ProviderConfig } from './config';
import type { ServiceDeliveries } from './deliveries';
import type { FallbackFeeds } from './fallback';
import { hlsDir, recordingsDir, VOD_PLAYLIST, vodsDir } from './files';
import { watchedPlaylist } from './renditions';
import type { ProviderState, ProviderStream, Recording } from './state';

/** A fragment of a live manifest. */
interface LiveFragment {
  name: string;
  durationSeconds: number;
}

/** A live manifest as read: its fragments and when nginx last wrote it. */
interface LiveManifest {
  fragments: LiveFragment[];
  modifiedAt: number;
}

/** The fragments a live HLS playlist lists, with their EXTINF durations. */
export function parseFragments(playlist: string): LiveFragment[] {
  const fragments: LiveFragment[] = [];
  let duration: number | null = null;
  for (const line of playlist.split('\n').map((text) => text.trim())) {
    if (line.startsWith('#EXTINF:')) duration = Number.parseFloat(line.slice('#EXTINF:'.length));
    else if (line && !line.startsWith('#') && duration !== null) {
      fragments.push({ name: line, durationSeconds: duration });
      duration = null;
    }
  }
  return fragments;
}

/** The playlist of a finished recording: every fragment, a discontinuity where the encoder reconnected, and the end. */
function vodPlaylist(recording: Recording): string {
  const target = Math.max(1, ...recording.segments.map((segment) => Math.ceil(segment.durationSeconds)));
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-PLAYLIST-TYPE:VOD', `#EXT-X-TARGETDURATION:${target}`, '#EXT-X-MEDIA-SEQUENCE:0'];
  recording.segments.forEach((segment, index) => {
    if (segment.discontinuity && index > 0) lines.push('#EXT-X-DISCONTINUITY');
    lines.push(`#EXTINF:${segment.durationSeconds.toFixed(3)},`, segment.file);
  });
  lines.push('#EXT-X-ENDLIST', '');
  return lines.join('\n');
}

export class Broadcasts {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> = Promise.resolve();
  /** When each stream's encoder last connected or left (not kept: nginx restarts with the provider). */
  private readonly changedAt = new Map<string, number>();
  /** The nginx connection publishing to each stream (not kept either). */
  private readonly encoders = new Map<string, string>();

  constructor(
    private readonly state: ProviderState,
    private readonly deliveries: ServiceDeliveries,
    private readonly config: Pick<ProviderConfig, 'stateDir' | 'pollMs' | 'idleAfterMs' | 'reconnectWindowMs' | 'renditions'>,
    private readonly vodBaseUrl: () => string,
    private readonly fallbacks: FallbackFeeds,
    private readonly logger: Logger,
  ) {}

  /**
   * Starts watching manifests. A stream the provider left mid-broadcast (it stopped or crashed) has no
   * encoder any more, since nginx stopped with it: its broadcast ends as the seed orders.
   */
  async start(): Promise<void> {
    for (const stream of Object.values(this.state.data.streams)) {
      await this.left(stream);
    }
    const loop = () => {
      this.ticking = this.tick().catch((error: Error) => this.logger.error({ err: error }, 'watching live manifests failed'));
      void this.ticking.then(() => {
        if (this.timer) this.timer = setTimeout(loop, this.config.pollMs);
      });
    };
    this.timer = setTimeout(loop, this.config.pollMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.ticking;
    await this.fallbacks.close();
  }

  /**
   * nginx's on_publish: admits the encoder (nginx's connection id `client`) when the key is known, its ingest
   * enabled and no other encoder is on it (nginx would refuse a second one anyway, after asking), and sends
   * `connected`; an encoder back within the reconnect window takes over from the fallback picture, which
   * leaves first. The provider's own fallback (`fallback`: the secret of its RTMP URL) is admitted without
   * news. False = nginx refuses it.
   */
  async connect(streamKey: string, client: string, fallback?: unknown): Promise<boolean> {
    const stream = this.state.streamByKey(streamKey);
    if (!stream?.ingestEnabled) return false;
    if (this.fallbacks.isOwn(fallback)) return this.fallbacks.admit(stream.id, client);
    if (this.encoders.has(stream.id)) return false;
    if (this.fallbacks.playing(stream.id)) await this.endFallback(stream);
    if (this.encoders.has(stream.id)) return false; // another encoder came in while the picture left
    this.encoders.set(stream.id, client);
    stream.publishes += 1;
    stream.phase = 'connected';
    this.changedAt.set(stream.id, Date.now());
    await this.deliveries.webhook(stream.id, 'connected');
    return true;
  }

  /** nginx's on_update, every second while an encoder (or the fallback) publishes: whether it may go on. */
  mayContinue(streamKey: string, client: string): boolean {
    const stream = this.state.streamByKey(streamKey);
    return stream?.ingestEnabled === true && (this.encoders.get(stream.id) === client || this.fallbacks.isFeed(stream.id, client));
  }

  /** nginx's on_publish_done: the admitted encoder left (a refused one is no news), or the fallback did. */
  async disconnect(streamKey: string, client: string): Promise<void> {
    const stream = this.state.streamByKey(streamKey);
    if (!stream) return;
    if (this.fallbacks.isFeed(stream.id, client)) {
      this.fallbacks.leftNginx(stream.id, client);
      return;
    }
    if (this.encoders.get(stream.id) !== client) return;
    this.encoders.delete(stream.id);
    await this.left(stream);
    if (this.config.reconnectWindowMs > 0 && stream.ingestEnabled) {
      this.fallbacks.start(stream).catch((error: Error) => this.logger.warn({ err: error.message }, 'the fallback picture could not be started'));
    }
  }

  /** deleteStream: the fallback picture stops with the ingest. */
  async ingestDisabled(stream: ProviderStream): Promise<void> {
    if (this.fallbacks.playing(stream.id)) await this.endFallback(stream);
  }

  /**
   * Stops the fallback picture and waits for it to leave nginx. Its fragments are no show: a recording
   * skips what the live manifest lists now, and the manifest's age counts from here.
   */
  private async endFallback(stream: ProviderStream): Promise<void> {
    await this.fallbacks.stop(stream.id);
    this.changedAt.set(stream.id, Date.now());
    const manifest = await this.manifest(stream);
    if (stream.recording && manifest) stream.recording.seen = manifest.fragments.map((fragment) => fragment.name);
  }

  private async left(stream: ProviderStream): Promise<void> {
    if (stream.phase !== 'connected' && stream.phase !== 'active') return;
    stream.phase = 'disconnected';
    this.changedAt.set(stream.id, Date.now());
    await this.deliveries.webhook(stream.id, 'disconnected');
  }

  private async manifest(stream: ProviderStream): Promise<LiveManifest | null> {
    // With renditions, the top one's media playlist: the master lists no fragments, and recordings keep the top.
    const file = join(hlsDir(this.config.stateDir), watchedPlaylist(stream.streamKey, this.config.renditions));
    try {
      const [info, text] = await Promise.all([stat(file), readFile(file, 'utf8')]);
      return { fragments: parseFragments(text), modifiedAt: info.mtimeMs };
    } catch {
      return null;
    }
  }

  /** One look at every stream that is on air or recording. */
  private async tick(): Promise<void> {
    for (const stream of Object.values(this.state.data.streams)) {
      if (stream.phase === 'offline' && !stream.recording) continue;
      const manifest = await this.manifest(stream);
      const picture = this.fallbacks.playing(stream.id);
      if (stream.recording && manifest) await this.record(stream, stream.recording, manifest, !picture);
      const since = this.changedAt.get(stream.id) ?? 0;
      if (picture) {
        // The reconnect window: the picture plays until the encoder is back (connect) or the window passes.
        if (stream.phase === 'disconnected' && Date.now() - since >= this.config.reconnectWindowMs) await this.endFallback(stream);
        continue;
      }
      if (stream.phase === 'connected' && manifest && manifest.fragments.length > 0 && manifest.modifiedAt >= since) {
        stream.phase = 'active';
        await this.deliveries.webhook(stream.id, 'active');
      } else if (stream.phase === 'disconnected' && (!manifest || Date.now() - Math.max(manifest.modifiedAt, since) >= this.config.idleAfterMs)) {
        stream.phase = 'offline';
        await this.deliveries.webhook(stream.id, 'idle');
      }
    }
  }

  /**
   * Copies the live fragments that appeared since the recording began. nginx numbers a stream's fragments
   * on across reconnects (hls_continuous), so a name is new exactly when the last look did not list it.
   * Copies, not links: once a stream's manifest is cleaned up, nginx may write a name again.
   */
  private async record(stream: ProviderStream, recording: Recording, manifest: LiveManifest, copy: boolean): Promise<void> {
    if (!copy) {
      // The fallback picture's fragments: not the show, never recorded.
      recording.seen = manifest.fragments.map((fragment) => fragment.name);
      return;
    }
    const folder = join(recordingsDir(this.config.stateDir), recording.liveBroadcastId);
    await mkdir(folder, { recursive: true });
    let changed = false;
    // A rewind window lists thousands of fragments: a set, not a scan of the list per fragment.
    const seen = new Set(recording.seen);
    for (const fragment of manifest.fragments) {
      if (seen.has(fragment.name)) continue;
      const file = `${String(recording.segments.length).padStart(6, '0')}.ts`;
      try {
        await copyFile(join(hlsDir(this.config.stateDir), fragment.name), join(folder, file));
      } catch {
        continue; // cleaned up already; the next look finds the newer ones
      }
      // A fragment of another connection than the one before it: the player must reset its decoder.
      const discontinuity = recording.segments.length > 0 && recording.lastPublish !== stream.publishes;
      recording.segments.push({ file, durationSeconds: fragment.durationSeconds, discontinuity, live: fragment.name });
      recording.lastPublish = stream.publishes;
      changed = true;
    }
    // A fragment that left the manifest never comes back: only the current ones need remembering.
    recording.seen = manifest.fragments.map((fragment) => fragment.name);
    if (changed) await this.state.save();
  }

  /** startStream: records what is ingested from now on, under the service's liveBroadcastId. */
  async startRecording(stream: ProviderStream, liveBroadcastId: string): Promise<void> {
    const manifest = await this.manifest(stream);
    // What the manifest lists now was ingested before the start (or is left from an earlier show).
    const seen = (manifest?.fragments ?? []).map((fragment) => fragment.name);
    stream.recording = { liveBroadcastId, startedAt: Date.now(), segments: [], seen, lastPublish: stream.publishes };
    await this.state.save();
  }

  /**
   * stopStream: takes the fragments finished so far, makes the recording a VOD under a new vodId and
   * queues its delivery. A recording that caught no fragment is dropped (there is nothing to play).
   */
  async stopRecording(stream: ProviderStream): Promise<string | null> {
    const recording = stream.recording;
    if (!recording) return null;
    // Taken from the watcher first, then the watcher's current look awaited: no two copy the same fragment.
    stream.recording = null;
    await this.ticking;
    const manifest = await this.manifest(stream);
    if (manifest) await this.record(stream, recording, manifest, !this.fallbacks.playing(stream.id));
    const folder = join(recordingsDir(this.config.stateDir), recording.liveBroadcastId);
    if (recording.segments.length === 0) {
      await rm(folder, { recursive: true, force: true });
      await this.state.save();
      this.logger.warn({ streamId: stream.id, liveBroadcastId: recording.liveBroadcastId }, 'recording stopped without any fragment: no VOD');
      return null;
    }
    const vodId = randomUUID();
    await writeFile(join(folder, VOD_PLAYLIST), vodPlaylist(recording));
    await mkdir(vodsDir(this.config.stateDir), { recursive: true });
    await rename(folder, join(vodsDir(this.config.stateDir), vodId));
    const durationSeconds = Math.round(recording.segments.reduce((sum, segment) => sum + segment.durationSeconds, 0) * 1000) / 1000;
    this.state.data.vods[vodId] = { id: vodId, streamId: stream.id, liveBroadcastId: recording.liveBroadcastId, durationSeconds, createdAt: Date.now() };
    await this.deliveries.vod(stream.id, {
      durationSeconds,
      liveBroadcastId: recording.liveBroadcastId,
      vodId,
      url: `${this.vodBaseUrl()}/vod/${vodId}/${VOD_PLAYLIST}`,
    });
    return vodId;
  }

  /** The fragments the stream's live playlist lists now (its live window); none when it has none. */
  async liveFragmentNames(stream: ProviderStream): Promise<string[]> {
    return ((await this.manifest(stream))?.fragments ?? []).map((fragment) => fragment.name);
  }

  /** deleteVod: removes the recording's files; false when the vodId is unknown. */
  async deleteVod(vodId: string): Promise<boolean> {
    if (!this.state.data.vods[vodId]) return false;
    await rm(join(vodsDir(this.config.stateDir), vodId), { recursive: true, force: true });
    delete this.state.data.vods[vodId];
    await this.state.save();
    return true;
  }
}
