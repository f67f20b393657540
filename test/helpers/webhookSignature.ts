/**
 * A receiver's check of stagegraph's outgoing webhooks, written from docs/api.md's documented format alone
 * (`x-stagegraph-signature: t=<unix ms>,v1=<hex>`, HMAC-SHA256 with the endpoint's secret over `${t}.${body}`,
 * refused when `t` is more than 5 minutes from the receiver's clock) with node:crypto — never the server's
 * own code, so a change of the format on the server side fails the tests instead of moving with them.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The documented replay window: a receiver refuses a signature made further than this from its clock. */
export const SIGNATURE_TOLERANCE_MS = 5 * 60_000;

/** True when `header` is the documented signature of `body` with `secret`, made within the tolerance of `receivedAt`. */
export function documentedSignatureHolds(header: string | string[] | undefined, body: string, secret: string, receivedAt = Date.now()): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(typeof header === 'string' ? header : '');
  if (!match) return false;
  if (Math.abs(receivedAt - Number(match[1])) > SIGNATURE_TOLERANCE_MS) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest('hex');
  return timingSafeEqual(Buffer.from(expected), Buffer.from(match[2]));
}
