/**
 * createClip (ours, docs/show.md "Clips"): a range of a delivered recording, or of the live window of a stream
 * that records, cut without re-encoding into a new VOD served like recordings at /vod/<vodId>/index.m3u8. The
 * range is found among the source's HLS fragments (each starts on a keyframe: nginx cuts there), which ffmpeg
 * reads as one concatenation, seeks into and copies (`-c copy`) into HLS of the same fragment length. ffmpeg
 * runs as a child process, so a cut never holds the event loop, and writes into a work folder that is renamed
 * into the VOD folder only once whole: nothing half cut is ever served or kept.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Broadcasts } from './broadcasts';
import { parseFragments } from './broadcasts';
import type { ProviderConfig } from './config';
import { recordingsDir, VOD_PLAYLIST, vodsDir } from './files';
import type { ProviderState, ProviderStream, RecordedSegment } from './state';

/** The longest clip cut (the service asks at most 300 s). */
export const MAX_CLIP_SECONDS = 300;
/** How long one ffmpeg cut may take before it is stopped (a copy of 300 s takes well under a second). */
const CUT_TIMEOUT_MS = 60_000;

/** A refused createClip: the HTTP status and why (provider/api.ts answers it as `{success: false, message}`). */
export class ClipRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** One fragment of a source, placed on its timeline (seconds from the source's start). */
interface PlacedFragment {
  path: string;
  start: number;
  durationSeconds: number;
}

/** What createClip answers. */
export interface CutClip {
  vodId: string;
  url: string;
  durationSeconds: number;
}

/** Places fragments one after another from second 0. */
function placed<T extends { durationSeconds: number }>(fragments: readonly T[], pathOf: (fragment: T) => string): (PlacedFragment & { of: T })[] {
  let start = 0;
  return fragments.map((fragment) => {
    const at = { path: pathOf(fragment), start, durationSeconds: fragment.durationSeconds, of: fragment };
    start += fragment.durationSeconds;
    return at;
  });
}

const endOf = (fragments: readonly PlacedFragment[]) => {
  const last = fragments.at(-1);
  return last ? last.start + last.durationSeconds : 0;
};

const seconds = (value: number) => Math.round(value * 1000) / 1000;

/** A whole number in [min, max] from the body, or 400 naming it. */
function whole(body: Record<string, unknown>, name: string, min: number, max: number): number {
  const value = body[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new ClipRefusal(400, `${name} must be an integer from ${min} to ${max}`);
  return value;
}

/** Runs ffmpeg to the end; rejects with its last words when it fails or takes too long. */
function runFfmpeg(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), CUT_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`ffmpeg ended with ${signal ?? `code ${code}`}: ${output.trim() || 'no output'}`));
    });
  });
}

export class ClipCutter {
  constructor(
    private readonly state: ProviderState,
    private readonly broadcasts: Broadcasts,
    private readonly config: Pick<ProviderConfig, 'stateDir' | 'hlsFragmentSeconds' | 'pollMs'>,
    private readonly vodBaseUrl: () => string,
  ) {}

  /** Removes cuts a stopped provider left unfinished: none was ever answered, so none is kept. */
  async clearUnfinished(): Promise<void> {
    await rm(this.workDir(), { recursive: true, force: true });
  }

  private workDir(): string {
    return join(this.config.stateDir, 'clips-work');
  }

  /**
   * The createClip call: `{sourceVodId}` (a VOD of this provider) or `{id}` (a stream recording now, its
   * `startSecond` counted from the recording's start), with `startSecond` and `durationSeconds` (whole
   * seconds). 404 for an unknown source, 409 for a stream that does not record, 422 for a range the source
   * does not hold (past a recording's end, or before the oldest fragment of the live window).
   */
  async cut(body: unknown): Promise<CutClip> {
    const fields = (body !== null && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const startSecond = whole(fields, 'startSecond', 0, 1_000_000_000);
    const durationSeconds = whole(fields, 'durationSeconds', 1, MAX_CLIP_SECONDS);
    const { sourceVodId, id } = fields;
    if ((typeof sourceVodId === 'string') === (typeof id === 'string'))
      throw new ClipRefusal(400, 'exactly one of sourceVodId (a VOD) and id (a stream that records) is required');
    const source =
      typeof sourceVodId === 'string'
        ? await this.recordingSource(sourceVodId, startSecond + durationSeconds)
        : await this.liveSource(id as string, startSecond, startSecond + durationSeconds);
    return this.write(source, startSecond, durationSeconds);
  }

  /** A delivered VOD's fragments; its end must reach `end`. */
  private async recordingSource(vodId: string, end: number) {
    const vod = this.state.data.vods[vodId];
    if (!vod) throw new ClipRefusal(404, `no VOD ${vodId}`);
    const folder = join(vodsDir(this.config.stateDir), vodId);
    const fragments = placed(parseFragments(await readFile(join(folder, VOD_PLAYLIST), 'utf8')), (fragment) => join(folder, fragment.name));
    if (end > endOf(fragments) + 0.5)
      throw new ClipRefusal(422, `the range ends past the recording's end (${seconds(endOf(fragments))} s): startSecond + durationSeconds must be within it`);
    return { fragments, streamId: vod.streamId, liveBroadcastId: vod.liveBroadcastId, clipOf: vodId };
  }

  /**
   * The stream's live window, placed on its recording's timeline: the recorded fragments the live playlist
   * still lists. The window's end is now; the fragment holding it may still be in the making, so the cut
   * waits a few fragment lengths for it.
   */
  private async liveSource(id: string, start: number, end: number) {
    const stream: ProviderStream | undefined = this.state.data.streams[id];
    if (!stream) throw new ClipRefusal(404, `no stream ${id}`);
    const deadline = Date.now() + (3 * this.config.hlsFragmentSeconds + 2) * 1000;
    let recorded: (PlacedFragment & { of: RecordedSegment })[] = [];
    for (;;) {
      const recording = stream.recording;
      if (!recording) throw new ClipRefusal(409, `stream ${id} is not recording: a live cut counts from its recording's start`);
      const folder = join(recordingsDir(this.config.stateDir), recording.liveBroadcastId);
      recorded = placed(recording.segments, (segment) => join(folder, segment.file));
      if (endOf(recorded) >= end || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, this.config.pollMs));
    }
    const listed = new Set(await this.broadcasts.liveFragmentNames(stream));
    const window = recorded.filter((fragment) => fragment.of.live !== undefined && listed.has(fragment.of.live));
    const [first] = window;
    if (!first || start < first.start || end > endOf(window) + 0.5) {
      const held = first ? `seconds ${Math.ceil(first.start)} to ${Math.floor(endOf(window))}` : 'nothing yet';
      throw new ClipRefusal(422, `the range is outside the live window, which holds ${held} of the recording`);
    }
    return { fragments: window, streamId: stream.id, liveBroadcastId: stream.recording?.liveBroadcastId ?? '', clipOf: null };
  }

  /** Cuts [startSecond, startSecond + durationSeconds) of the fragments into a new VOD and keeps it. */
  private async write(
    source: { fragments: PlacedFragment[]; streamId: string; liveBroadcastId: string; clipOf: string | null },
    startSecond: number,
    durationSeconds: number,
  ): Promise<CutClip> {
    const end = startSecond + durationSeconds;
    const pieces = source.fragments.filter((fragment) => fragment.start + fragment.durationSeconds > startSecond && fragment.start < end);
    const vodId = randomUUID();
    const work = join(this.workDir(), vodId);
    await mkdir(work, { recursive: true });
    try {
      // ffmpeg's concat list: the pieces' paths, quoted as its syntax asks (a path holds no quote of ours).
      const list = ['ffconcat version 1.0', ...pieces.map((piece) => `file '${piece.path.replaceAll("'", "'\\''")}'`), ''].join('\n');
      await writeFile(join(work, 'pieces.ffconcat'), list);
      const offset = Math.max(0, startSecond - pieces[0].start);
      // -ss before -i seeks the concatenation to the keyframe at or before the start; -c copy keeps every frame as encoded.
      await runFfmpeg([
        ...['-v', 'error', '-nostdin', '-f', 'concat', '-safe', '0', '-ss', offset.toFixed(3), '-i', join(work, 'pieces.ffconcat')],
        ...['-t', String(durationSeconds), '-map', '0', '-c', 'copy', '-f', 'hls', '-hls_time', String(this.config.hlsFragmentSeconds)],
        ...['-hls_list_size', '0', '-hls_playlist_type', 'vod', '-hls_segment_filename', join(work, '%06d.ts'), join(work, VOD_PLAYLIST)],
      ]);
      await rm(join(work, 'pieces.ffconcat'));
      const cut = parseFragments(await readFile(join(work, VOD_PLAYLIST), 'utf8'));
      const total = seconds(cut.reduce((sum, fragment) => sum + fragment.durationSeconds, 0));
      await mkdir(vodsDir(this.config.stateDir), { recursive: true });
      await rename(work, join(vodsDir(this.config.stateDir), vodId));
      this.state.data.vods[vodId] = {
        id: vodId,
        streamId: source.streamId,
        liveBroadcastId: source.liveBroadcastId,
        durationSeconds: total,
        createdAt: Date.now(),
        ...(source.clipOf ? { clipOf: source.clipOf } : {}),
      };
      await this.state.save();
      return { vodId, url: `${this.vodBaseUrl()}/vod/${vodId}/${VOD_PLAYLIST}`, durationSeconds: total };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
}
