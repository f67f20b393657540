/** Identifiers: 24 lowercase hex characters, the shape of the `_id` values in the seeds. */
import { randomBytes } from 'node:crypto';

export function newId(): string {
  return randomBytes(12).toString('hex');
}

/** `count` new IDs from one random buffer: bulk writes make thousands at once. */
export function newIds(count: number): string[] {
  const hex = randomBytes(12 * count).toString('hex');
  return Array.from({ length: count }, (_, index) => hex.slice(index * 24, index * 24 + 24));
}
