/**
 * The token check nginx asks before it serves a playback file (its `auth_request`, provider/nginx.ts):
 * nginx passes the viewer's request path, and this answers 200 with the file nginx is to send, or 403
 * with why. Signed playback (PROVIDER_SIGNED_PLAYBACK, shared/playbackSigning.ts) puts a token in the
 * path, before the file, signed for the stream's playlist path, so one HMAC per request decides any
 * file of that stream: absent (for a stream that plays signed only), altered, another stream's,
 * expired or in another shape, it is 403. nginx treats any answer but 2xx, 401 and 403 as its own
 * failure (500), so nothing here answers anything else: a path that names no file gets 200 and a file
 * name that does not exist, which nginx answers 404.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { unsignedPath, verifyPlaybackToken } from '../shared/playbackSigning';
import { VOD_PLAYLIST } from './files';
import { LIVE_FILE_TAIL } from './renditions';
import type { ProviderState, Registration } from './state';

/** Headers the check answers with; nginx reads them with `auth_request_set`. */
export const CHECK_HEADERS = {
  /** The file to send, relative to the live HLS folder or the recordings folder. */
  file: 'x-playback-file',
  /** The live stream's key, which nginx's manifest names its fragments by… */
  streamKey: 'x-playback-stream-key',
  /** …and the playback name the manifest says instead (the key lets one publish: it stays secret). */
  playbackName: 'x-playback-name',
  /** Why a request was refused (a fixed sentence, safe inside a JSON string). */
  refusal: 'x-playback-refusal',
} as const;

/** Where nginx passes the viewer's request path (its raw `$request_uri`). */
export const ORIGINAL_URI_HEADER = 'x-original-uri';

/** The path the check answers on, on the provider's own HTTP server (loopback only). */
export const PLAYBACK_CHECK_PATH = '/playback/check';

/** A file name nothing is written under: nginx answers 404 for it. */
const NO_FILE = '-';

// The stream's playlist (the master when it has renditions), a rendition's playlist, or a fragment.
const LIVE_FILE = new RegExp(`^/hls/([0-9a-f]{24})(${LIVE_FILE_TAIL})$`);
const VOD_FILE = /^\/vod\/([A-Za-z0-9_-]{1,64})\/([A-Za-z0-9_-][A-Za-z0-9._-]{0,127})$/;

type Verdict = { file: string; streamKey?: string; playbackName?: string } | { refusal: string };

const INVALID = 'this playback URL is not valid for this stream now';
const SIGNED_ONLY = 'this stream plays only through a signed URL';

export interface PlaybackCheckDeps {
  state: ProviderState;
  registration: () => Registration | null;
}

/** What the request path `rawPath` may play now. */
export function playbackVerdict(deps: PlaybackCheckDeps, rawPath: string, now: number): Verdict {
  const signed = unsignedPath(rawPath);
  const path = signed ? signed.path : rawPath;
  // Verified against the playlist path of the stream or recording the file belongs to: one token, all its files.
  const tokenLets = (playlistPath: string) => {
    const key = deps.registration()?.playbackKey;
    return signed !== null && key !== undefined && verifyPlaybackToken(signed.token, playlistPath, [key], now);
  };
  const live = LIVE_FILE.exec(path);
  if (live) {
    if (signed && !tokenLets(`/hls/${live[1]}.m3u8`)) return { refusal: INVALID };
    const stream = deps.state.streamByPlaybackName(live[1]);
    if (!stream) return { file: NO_FILE };
    if (!signed && stream.signedOnly) return { refusal: SIGNED_ONLY };
    return { file: `${stream.streamKey}${live[2]}`, streamKey: stream.streamKey, playbackName: stream.playbackName };
  }
  const vod = VOD_FILE.exec(path);
  if (vod) {
    if (signed && !tokenLets(`/vod/${vod[1]}/${VOD_PLAYLIST}`)) return { refusal: INVALID };
    const recording = deps.state.data.vods[vod[1]];
    if (!signed && recording && deps.state.data.streams[recording.streamId]?.signedOnly) return { refusal: SIGNED_ONLY };
    return { file: `${vod[1]}/${vod[2]}` };
  }
  // A token on a path that names no file of a stream is still a token in another shape.
  return signed || rawPath.includes('/t/') ? { refusal: INVALID } : { file: NO_FILE };
}

/** Whether a request comes from this machine: loopback, or this server's own address when it listens on one. */
export function fromThisMachine(request: IncomingMessage): boolean {
  const address = request.socket.remoteAddress;
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1' || address === request.socket.localAddress;
}

/**
 * Answers nginx's check; only nginx, on this machine, may ask it. A plain Node handler ahead of the
 * Express app (provider/server.ts): it runs for every playback request, and Express's routing would be
 * most of its cost (docs/benchmarks.md, "Signed playback at the reference provider").
 */
export function answerPlaybackCheck(deps: PlaybackCheckDeps, request: IncomingMessage, response: ServerResponse): void {
  // An empty body of a stated length: nginx reads only the headers of an auth_request answer, and keeps the
  // connection for the next check only when it knows no body follows (chunked, it closes it every time).
  const empty = { 'content-length': 0 };
  if (request.method !== 'GET' || !fromThisMachine(request)) {
    response.writeHead(403, empty).end();
    return;
  }
  const original = request.headers[ORIGINAL_URI_HEADER];
  const rawPath = typeof original === 'string' ? original.split('?')[0] : '';
  const verdict = playbackVerdict(deps, rawPath, Date.now());
  if ('refusal' in verdict) {
    response.writeHead(403, { ...empty, [CHECK_HEADERS.refusal]: verdict.refusal }).end();
    return;
  }
  response
    .writeHead(200, {
      ...empty,
      [CHECK_HEADERS.file]: verdict.file,
      // nginx's sub_filter needs a string to look for even when the answer names no live file: one no file holds.
      [CHECK_HEADERS.streamKey]: verdict.streamKey ?? NO_FILE,
      [CHECK_HEADERS.playbackName]: verdict.playbackName ?? NO_FILE,
    })
    .end();
}
