/** The text of a WebSocket message as `ws` hands it over (one Buffer, fragments, or an ArrayBuffer). */
import type { RawData } from 'ws';

/** A message's bytes as UTF-8 text, whichever of its three forms `ws` delivered it in. */
export function messageText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
