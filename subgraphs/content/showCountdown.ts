/**
 * The countdown of a channel: until `data.countdown.start_time` while it is in the future. Kept alone in
 * this module on purpose: schedule repeats (`subgraphs/content/schedule/`) replace this function's body.
 */
import type { ChannelCountdown } from '../../shared/channelStatus';
import { isRecord } from './checks';

/** Unix ms of a time given as epoch ms or an ISO string; null when it is neither. */
function timeOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string') return null;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? null : parsed;
}

/** `{title, startsAt}` from the page's `data.countdown {title, start_time}` while the start is after `now`, else null. */
export function showCountdown(document: unknown, now: number): ChannelCountdown | null {
  const data = isRecord(document) && isRecord(document.data) ? document.data : {};
  const countdown = isRecord(data.countdown) ? data.countdown : null;
  if (!countdown) return null;
  const startsAt = timeOf(countdown.start_time);
  if (startsAt === null || startsAt <= now) return null;
  return { title: typeof countdown.title === 'string' ? countdown.title : null, startsAt };
}
