/**
 * Structured JSON logs (pino). Credentials are redacted by path so a logged request or error never
 * carries a key, token, password or signature.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { currentTraceId } from './tracing';

export type { Logger };

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-service-developer-key"]',
  'req.headers["x-dataprovider-signature"]',
  'req.headers["super-api-key"]',
  'req.headers["x-stagegraph-identity"]',
  'headers.authorization',
  'headers["x-service-developer-key"]',
  '*.password',
  '*.secret',
  '*.authorization',
  '*.developerKey',
  '*.jwt',
  '*.refreshToken',
];

/**
 * The service's logger. Every line written while a request is served carries its `trace_id` (the
 * caller's traceparent, or the request's own trace), so logs join traces and each other across services.
 * `destination` is where lines go (default stdout; tests capture them).
 */
export function createLogger(level: string, name = 'stagegraph', destination?: DestinationStream): Logger {
  const options = {
    name,
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: name },
    mixin: () => {
      const traceId = currentTraceId();
      return traceId ? { trace_id: traceId } : {};
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
