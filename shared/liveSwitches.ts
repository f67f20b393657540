/**
 * Why a channel whose stream is on air is not live to its viewers (docs/design.md "The show"). A channel plays its
 * stream only when its admin has switched it on twice — `active_renderers.livestream` (the player is shown) and
 * `renderers.livestream.livestream_published` (the live video is published) — and names that stream
 * (`renderers.livestream.stream_id`). An encoder can be pushing, the provider answering LIVE, and the watch page
 * still say "This channel is offline": the admin's reads of the stream and of the channel say which of these is off.
 */
import { ON_AIR, type ShowState } from './contracts/channelStatus';

/** The switches of a channel's page document that must both be true for its stream to play, by their place in it. */
export const LIVE_SWITCHES = ['active_renderers.livestream', 'renderers.livestream.livestream_published'] as const;
export type LiveSwitch = (typeof LIVE_SWITCHES)[number];

/** What an admin's read says about a stream and its channel. */
export interface LiveCheck {
  /** The stream's show, as its provider's webhooks moved it: OFFLINE, STARTING, LIVE, RECONNECTING or ENDED. */
  show: ShowState;
  /** The show is LIVE or RECONNECTING. */
  streamOnAir: boolean;
  /** The channel plays this stream to its viewers now. */
  channelLive: boolean;
  /** The switches of the channel that are off (in LIVE_SWITCHES' order); empty when both are on. */
  switchesOff: LiveSwitch[];
  /** The channel names this stream as its own (`renderers.livestream.stream_id`). */
  channelNamesStream: boolean;
  /** One sentence for the admin when the stream is on air and the channel is not live; null otherwise. */
  reason: string | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The switches of a page document that are off. */
export function switchesOff(document: unknown): LiveSwitch[] {
  const active = isRecord(document) && isRecord(document.active_renderers) ? document.active_renderers : {};
  const renderers = isRecord(document) && isRecord(document.renderers) ? document.renderers : {};
  const livestream = isRecord(renderers.livestream) ? renderers.livestream : {};
  const off: LiveSwitch[] = [];
  if (active.livestream !== true) off.push('active_renderers.livestream');
  if (livestream.livestream_published !== true) off.push('renderers.livestream.livestream_published');
  return off;
}

/** The live check of a stream whose show is `show`, for the channel whose page document is `document`. */
export function liveCheckOf(streamId: string, show: ShowState, document: unknown): LiveCheck {
  const streamOnAir = ON_AIR.includes(show);
  const off = switchesOff(document);
  const renderers = isRecord(document) && isRecord(document.renderers) ? document.renderers : {};
  const livestream = isRecord(renderers.livestream) ? renderers.livestream : {};
  const channelNamesStream = livestream.stream_id === streamId;
  const channelLive = streamOnAir && channelNamesStream && off.length === 0;
  let reason: string | null = null;
  if (streamOnAir && !channelLive) {
    const causes = [
      ...(channelNamesStream ? [] : [`the channel plays another stream (renderers.livestream.stream_id is ${JSON.stringify(livestream.stream_id ?? null)})`]),
      ...off.map((name) => `${name} is not true`),
    ];
    reason = `the stream is ${show} but its channel is not live: ${causes.join('; ')}`;
  }
  return { show, streamOnAir, channelLive, switchesOff: off, channelNamesStream, reason };
}
