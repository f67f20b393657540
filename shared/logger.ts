/**
 * Structured JSON logs (pino). Credentials are redacted by path so a logged request or error never
 * carries a key, token, password or signature.
 */
import pino, { type Logger } from 'pino';

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

export function createLogger(level: string, name = 'stagegraph'): Logger {
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: name } });
}
