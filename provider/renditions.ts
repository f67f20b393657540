/**
 * Renditions (docs/design.md, "The show as its peers run it"): the provider transcodes each live stream
 * into a ladder of renditions under one master playlist, as Mux and Cloudflare Stream do. nginx's RTMP
 * module runs one ffmpeg per publishing stream (`exec_push`), which reads the stream back from the
 * `live` application and publishes each rendition into the `ladder` application under
 * `<streamKey>_<rendition>`; there nginx writes each rendition's media playlist and fragments, and
 * (`hls_variant`) the master playlist `<streamKey>.m3u8` naming them by relative URIs, so the playback
 * URL the service already holds becomes the master, and a token in its path carries over to every
 * variant and fragment. `source` is passed through without re-encoding (`-c copy`). With `source`
 * alone (the default) nothing is transcoded: the live application writes the stream's one playlist
 * itself, as before renditions.
 */

/** One rung of the ladder a stream may be transcoded into. */
export interface Rendition {
  /** Frame size of the rendition (the picture scaled to fit, then padded): null for `source`, which keeps the encoder's. */
  width: number | null;
  height: number | null;
  /** Video bitrate in kbit/s (the master's BANDWIDTH adds the audio); for `source`, the figure the master states. */
  videoKbps: number;
}

/** The fixed ladder, top first. `source` is what the encoder sends; it counts as the top. */
export const RENDITION_LADDER = {
  source: { width: null, height: null, videoKbps: 6000 },
  '1080p': { width: 1920, height: 1080, videoKbps: 5000 },
  '720p': { width: 1280, height: 720, videoKbps: 2800 },
  '480p': { width: 854, height: 480, videoKbps: 1400 },
  '360p': { width: 640, height: 360, videoKbps: 800 },
  '240p': { width: 426, height: 240, videoKbps: 400 },
} as const satisfies Record<string, Rendition>;

export type RenditionName = keyof typeof RENDITION_LADDER;

const NAMES = Object.keys(RENDITION_LADDER) as RenditionName[];

/** Audio is copied into every rendition: what the master adds to each BANDWIDTH for it. */
const AUDIO_KBPS = 128;

/**
 * `PROVIDER_RENDITIONS` as a list in ladder order (top first): names of the fixed ladder, comma-separated,
 * each once. An unknown name, a repeat or an empty list throws naming the variable and the bad value.
 */
export function parseRenditions(raw: string | undefined): RenditionName[] {
  if (raw === undefined) return ['source'];
  const names = raw.split(',').map((name) => name.trim());
  if (names.every((name) => name === '')) throw new Error(`PROVIDER_RENDITIONS must name at least one rendition of ${NAMES.join(', ')}, got "${raw}"`);
  const chosen = new Set<RenditionName>();
  for (const name of names) {
    if (!(NAMES as string[]).includes(name)) throw new Error(`PROVIDER_RENDITIONS names an unknown rendition "${name}" (known: ${NAMES.join(', ')})`);
    if (chosen.has(name as RenditionName)) throw new Error(`PROVIDER_RENDITIONS names "${name}" twice`);
    chosen.add(name as RenditionName);
  }
  return NAMES.filter((name) => chosen.has(name));
}

/** Whether the ladder needs ffmpeg: anything but `source` alone. */
export const transcodes = (renditions: readonly RenditionName[]) => !(renditions.length === 1 && renditions[0] === 'source');

/** The suffix a rendition's stream, media playlist and fragments carry after the stream key. */
export const renditionSuffix = (name: RenditionName) => `_${name}`;

/**
 * The media playlist the provider watches and records from, relative to the live HLS folder: the top
 * rendition's when the ladder transcodes, else the stream's one playlist.
 */
export const watchedPlaylist = (streamKey: string, renditions: readonly RenditionName[]) =>
  transcodes(renditions) ? `${streamKey}${renditionSuffix(renditions[0])}.m3u8` : `${streamKey}.m3u8`;

/** What may follow a playback name in a live file's name: a rendition's suffix, then the playlist or a fragment. */
export const LIVE_FILE_TAIL = `(?:_(?:${NAMES.join('|')}))?(?:\\.m3u8|-\\d{1,12}\\.ts)`;

/** ffmpeg's output arguments for one rendition, published to `target`. No argument holds a space: nginx splits exec_push on them. */
function renditionOutput(name: RenditionName, fragmentSeconds: number, target: string): string[] {
  const streams = ['-map', '0:v', '-map', '0:a?'];
  const rung: Rendition = RENDITION_LADDER[name];
  if (rung.width === null || rung.height === null) return [...streams, '-c', 'copy', '-f', 'flv', target];
  const size = `${rung.width}:${rung.height}`;
  return [
    ...streams,
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-tune',
    'zerolatency',
    // Exactly the rung's frame size whatever the encoder's shape: scaled to fit, the rest padded.
    '-vf',
    `scale=${size}:force_original_aspect_ratio=decrease,pad=${size}:(ow-iw)/2:(oh-ih)/2,setsar=1,format=yuv420p`,
    '-b:v',
    `${rung.videoKbps}k`,
    '-maxrate',
    `${rung.videoKbps}k`,
    '-bufsize',
    `${rung.videoKbps * 2}k`,
    // A keyframe at every fragment boundary, so each rendition cuts its fragments where the others do.
    '-force_key_frames',
    `expr:gte(t,n_forced*${fragmentSeconds})`,
    '-sc_threshold',
    '0',
    '-c:a',
    'copy',
    '-f',
    'flv',
    target,
  ];
}

/** The ffmpeg command line nginx runs per publishing stream (`$name`: the stream key, filled in by nginx). */
export function ladderCommand(renditions: readonly RenditionName[], rtmpBase: string, fragmentSeconds: number): string[] {
  return [
    'ffmpeg',
    '-nostdin',
    '-loglevel',
    'error',
    '-i',
    `${rtmpBase}/live/\${name}`,
    ...renditions.flatMap((name) => renditionOutput(name, fragmentSeconds, `${rtmpBase}/ladder/\${name}${renditionSuffix(name)}`)),
  ];
}

/** The master playlist's line per rendition (`hls_variant`): its suffix, bandwidth and, when known, frame size. */
export function variantDirectives(renditions: readonly RenditionName[]): string[] {
  return renditions.map((name) => {
    const rung: Rendition = RENDITION_LADDER[name];
    const resolution = rung.width === null ? '' : ` RESOLUTION=${rung.width}x${rung.height}`;
    return `hls_variant ${renditionSuffix(name)} BANDWIDTH=${(rung.videoKbps + AUDIO_KBPS) * 1000}${resolution};`;
  });
}

export interface LadderSettings {
  renditions: readonly RenditionName[];
  hlsFragmentSeconds: number;
  dvrSeconds: number;
  rtmpPort: number;
  rtmpListenHost: string;
}

/**
 * Seconds of fragments a live playlist lists: the rewind window (`PROVIDER_DVR_SECONDS`), or six fragments
 * when there is none. nginx's `hls_cleanup` deletes a fragment only once it has left this window (it
 * keeps files for twice the playlist's length), so every listed fragment is still there to play.
 */
export const playlistSeconds = (settings: Pick<LadderSettings, 'hlsFragmentSeconds' | 'dvrSeconds'>) =>
  Math.max(settings.dvrSeconds, settings.hlsFragmentSeconds * 6);

/**
 * nginx's RTMP configuration of the ladder: the directives of the `live` application the encoder publishes
 * to (its HLS, or the exec_push of the renditions' ffmpeg), and the `ladder` application that takes the
 * renditions from that ffmpeg alone (loopback) and writes their HLS and the master playlist.
 */
export function ladderApplications(settings: LadderSettings, hlsPath: string): { live: string; applications: string } {
  if (!transcodes(settings.renditions)) {
    const comment = "# Only the encoder publishes; viewers play the HLS. The provider's simulcast relays play on this machine (provider/simulcast.ts).";
    return { live: lines([comment, `allow play ${playHost(settings)};`, 'deny play all;', ...hlsDirectives(settings, hlsPath)]), applications: '' };
  }
  return transcodingApplications(settings, hlsPath);
}

/** The address nginx's own readers (the renditions' ffmpeg, the simulcast relays) play the encoder from. */
const playHost = (settings: Pick<LadderSettings, 'rtmpListenHost'>) =>
  settings.rtmpListenHost === '0.0.0.0' ? '127.0.0.1' : settings.rtmpListenHost.replace(/^\[|\]$/g, '');

/** Directives inside an application block, one a line. */
const lines = (directives: string[]) => directives.map((line) => `      ${line}\n`).join('');

/** The HLS directives of an application writing live playlists: fragment, window, cleanup. */
const hlsDirectives = (settings: Pick<LadderSettings, 'hlsFragmentSeconds' | 'dvrSeconds'>, hlsPath: string) => [
  'hls on;',
  `hls_path ${hlsPath};`,
  `hls_fragment ${settings.hlsFragmentSeconds}s;`,
  `hls_playlist_length ${playlistSeconds(settings)}s;`,
  'hls_cleanup on;',
];

/**
 * The ladder through ffmpeg, whatever its renditions: `source` alone too, which the bench runs as the
 * baseline of what one rendition costs (bench/renditions.ts).
 */
export function transcodingApplications(settings: LadderSettings, hlsPath: string): { live: string; applications: string } {
  const host = playHost(settings);
  const rtmpBase = `rtmp://${host.includes(':') ? `[${host}]` : host}:${settings.rtmpPort}`;
  const command = ladderCommand(settings.renditions, rtmpBase, settings.hlsFragmentSeconds).join(' ');
  const live = lines([
    "# Only the renditions' ffmpeg and the simulcast relays (on this machine) read the encoder back; viewers play the HLS of the ladder.",
    `allow play ${host};`,
    'deny play all;',
    // nginx starts it once the encoder is admitted and stops it when the encoder leaves.
    `exec_push ${command};`,
    'exec_kill_signal term;',
  ]);
  const applications = `    # The renditions of each live stream, published by its exec_push ffmpeg alone.
    application ladder {
${lines(['live on;', 'record off;', `allow publish ${host};`, 'deny publish all;', 'deny play all;', ...hlsDirectives(settings, hlsPath), ...variantDirectives(settings.renditions)])}    }
`;
  return { live, applications };
}
