/**
 * Calls from the service to a streaming provider's URLs: POST with JSON and the contract's Bearer
 * token, a timeout on every attempt, retries with doubling backoff for network errors, timeouts and
 * 5xx (never for 4xx, which the provider meant), only http(s) and no redirects followed. Whatever the
 * provider does, the caller gets an answer or a BAD_GATEWAY error with a message — never a hang.
 */
import { isNonPublicRefusal, outboundFetch, readTextLimited, type OutboundPolicy } from '../../shared/outbound';
import { appError, ErrorCode } from '../../shared/errors';
import type { Logger } from '../../shared/logger';

/** The keys of a contract's `urls`: what the service can ask a provider to do. */
export type ProviderOperation =
  'createStream' | 'deleteStream' | 'deleteVod' | 'startStream' | 'stopStream' | 'verifyAccount' | 'activateStream' | 'createClip' | 'setSimulcastTargets';

export interface ProviderCallSettings {
  timeoutMs: number;
  /** Extra attempts after a retryable failure. */
  retries: number;
  /** First backoff; it doubles per attempt (with jitter). */
  backoffMs?: number;
  logger: Logger;
  /** Which non-public addresses the URL may reach (outboundPolicy(config)). */
  policy: OutboundPolicy;
  /** The contract's name, so an admin reading a failure knows which provider failed. */
  providerName?: string;
}

/** A 2xx or 4xx answer: the body parsed as JSON when it is JSON, else its text (or null when empty). */
export interface ProviderAnswer {
  status: number;
  body: unknown;
}

const MAX_ANSWER_BYTES = 1024 * 1024;

export const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

const badGateway = (operation: ProviderOperation, reason: string, providerName?: string) =>
  appError(ErrorCode.BAD_GATEWAY, `the streaming provider${providerName ? ` "${providerName}"` : ''}'s ${operation} call failed: ${reason}`);

/** Reads at most MAX_ANSWER_BYTES of the answer; a provider cannot make the service buffer without bound. */
async function readAnswer(response: Response): Promise<unknown> {
  const text = await readTextLimited(response, MAX_ANSWER_BYTES);
  if (text === null) throw new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`);
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * POSTs `payload` to the provider URL of `operation`. Answers 2xx and 4xx (the caller decides what a
 * 4xx means); throws BAD_GATEWAY after the last failed attempt, for a redirect, or for a URL that is
 * not http(s).
 */
export async function callProvider(
  operation: ProviderOperation,
  url: string,
  token: string,
  payload: object,
  settings: ProviderCallSettings,
): Promise<ProviderAnswer> {
  if (!isHttpUrl(url)) throw badGateway(operation, 'its URL is not http(s)', settings.providerName);
  const body = JSON.stringify(payload);
  const attempts = settings.retries + 1;
  const backoffMs = settings.backoffMs ?? 200;
  let failure = '';
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    try {
      const response = await outboundFetch(
        url,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(settings.timeoutMs),
        },
        settings.policy,
      );
      const answer = await readAnswer(response);
      if (response.status >= 300 && response.status < 400)
        throw badGateway(operation, `it answered with a redirect (${response.status}), which is not followed`, settings.providerName);
      if (response.status < 500) return { status: response.status, body: answer };
      failure = `${response.status}${messageOf(answer) ? ` (${messageOf(answer)})` : ''}`;
    } catch (error) {
      if (error instanceof Error && 'extensions' in error) throw error;
      // Not retried: the address will not become public by asking again.
      if (isNonPublicRefusal(error)) throw badGateway(operation, 'its URL does not reach a public address', settings.providerName);
      const name = (error as Error).name;
      failure = name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${settings.timeoutMs} ms` : `${(error as Error).message}${causeOf(error)}`;
    }
    settings.logger.warn({ operation, attempt, attempts, failure }, 'streaming provider call failed');
    if (attempt < attempts) await pause(backoffMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5));
  }
  throw badGateway(operation, `${failure} after ${attempts} attempt(s)`, settings.providerName);
}

const causeOf = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause ? ` (${cause.code ?? cause.message})` : '';
};

/** A provider's own message in an answer body ({ message } or { error }), if any. */
export function messageOf(body: unknown): string | null {
  if (typeof body === 'string') return body.slice(0, 200) || null;
  if (body && typeof body === 'object') {
    const { message, error } = body as { message?: unknown; error?: unknown };
    const text = typeof message === 'string' ? message : typeof error === 'string' ? error : null;
    return text ? text.slice(0, 200) : null;
  }
  return null;
}

/** A 4xx the operation gives no meaning to is the provider's failure, reported as BAD_GATEWAY. */
export function unexpectedAnswer(operation: ProviderOperation, answer: ProviderAnswer, providerName?: string) {
  const message = messageOf(answer.body);
  return badGateway(operation, `it answered ${answer.status}${message ? ` (${message})` : ''}`, providerName);
}
