/** Identifiers: 24 lowercase hex characters, the shape of the `_id` values in the seeds. */
import { randomBytes } from 'node:crypto';

export function newId(): string {
  return randomBytes(12).toString('hex');
}
