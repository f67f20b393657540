/**
 * Where the provider's media lives inside its state folder: nginx writes the live HLS, the watcher copies
 * recordings, and nginx serves both to viewers. One module, so the writer and the server agree.
 */
import { join } from 'node:path';

/** Live HLS as nginx's RTMP module writes it: `<streamKey>.m3u8` and `<streamKey>-<n>.ts`. */
export const hlsDir = (stateDir: string) => join(stateDir, 'hls');
/** Recordings being made, one folder per live broadcast. */
export const recordingsDir = (stateDir: string) => join(stateDir, 'recordings');
/** Delivered recordings, one folder per VOD. */
export const vodsDir = (stateDir: string) => join(stateDir, 'vod');

/** The name of a VOD's playlist inside its folder. */
export const VOD_PLAYLIST = 'index.m3u8';
