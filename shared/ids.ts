/** Identifiers: 24 lowercase hex characters, the shape of the `_id` values in the seeds. */
import { randomBytes } from 'node:crypto';

// IDs name records; they are not secrets (tokens and keys are made elsewhere). Drawing 12 bytes at a
// time from a pooled buffer of random bytes spares a call into the system's random source per record.
const POOL_BYTES = 16 * 512;
let pool = randomBytes(POOL_BYTES);
let offset = 0;

/**
 * `bytes` random bytes as lowercase hex, drawn from the pool: for identifiers that name things (records,
 * requests, traces), never for secrets.
 */
export function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

export function newId(): string {
  return randomHex(12);
}

/** `count` new IDs from one random buffer: bulk writes make thousands at once. */
export function newIds(count: number): string[] {
  const hex = randomBytes(12 * count).toString('hex');
  return Array.from({ length: count }, (_, index) => hex.slice(index * 24, index * 24 + 24));
}
