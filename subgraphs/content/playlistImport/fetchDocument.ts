/**
 * One GET to a video platform through the outbound client (public addresses only, a timeout), its body read
 * up to MAX_IMPORT_BYTES. Every failure to reach the URL (refused, reset, timed out, not a public address) is
 * one message, so the import cannot be used to tell open ports from closed ones.
 */
import { badInput } from '../../../shared/errors';
import { outboundFetch, readTextLimited, type OutboundPolicy } from '../../../shared/outbound';
import { badGateway, MAX_IMPORT_BYTES, tooLarge } from './types';

/** How the import reaches platforms: the outbound policy and how long one call may wait. */
export interface FetchContext {
  policy: OutboundPolicy;
  timeoutMs: number;
}

export interface FetchedDocument {
  text: string;
  /** The Content-Type's media type, lower case ('' when absent). */
  contentType: string;
  /** The URL the body came from, after redirects: relative links in it resolve against it. */
  url: string;
}

/** GET `url`: 400 when the platform has nothing public there (4xx), 502 when it fails, 413 when it is too large. */
export async function fetchDocument(url: string, accept: string, context: FetchContext): Promise<FetchedDocument> {
  let response: Response;
  try {
    response = await outboundFetch(
      url,
      { headers: { accept, 'user-agent': 'stagegraph-import/1' }, signal: AbortSignal.timeout(context.timeoutMs) },
      context.policy,
    );
  } catch {
    throw badGateway('the video platform could not be reached at that URL');
  }
  if (response.status >= 400 && response.status < 500) {
    await response.body?.cancel();
    throw badInput(`url: the video platform has no public playlist there (it answered ${response.status})`, 'url');
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw badGateway(`the video platform failed (it answered ${response.status})`);
  }
  let text: string | null;
  try {
    text = await readTextLimited(response, MAX_IMPORT_BYTES);
  } catch {
    // A body cut off midway (the connection reset, the timeout reached while reading) is the platform failing.
    throw badGateway('the video platform could not be reached at that URL');
  }
  if (text === null) throw tooLarge();
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase().slice(0, 100);
  return { text, contentType, url: response.url || url };
}

/** GET a JSON API answer; a body that is not JSON is the platform failing (502). */
export async function fetchJson(url: string, context: FetchContext): Promise<unknown> {
  const { text } = await fetchDocument(url, 'application/json', context);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badGateway('the video platform did not answer its API with JSON');
  }
}
