/** The countdown a channel shows before its show: what `channelStatus.countdown` carries. */
import { isRecord } from '../checks';
import { isScheduleTime, pageData, scheduleOf } from './items';
import { nextStartAfter } from './occurrences';

/** A countdown to a start: `startsAt` in Unix ms (the server's clock). */
export interface Countdown {
  title: string | null;
  startsAt: number;
}

/**
 * The countdown of a page at `now` (Unix ms): the page's own `data.countdown {title, start_time}` while
 * that start is ahead; else the soonest next start of a schedule item with `show_countdown` true, titled
 * with its video's `data.name` (or `data.title`) — the earlier item on a tie; else null.
 */
export function countdownOf(page: { document: unknown }, now: number): Countdown | null {
  const data = pageData(page.document);
  const own = isRecord(data.countdown) ? data.countdown : null;
  if (own && isScheduleTime(own.start_time) && own.start_time > now) {
    return { title: typeof own.title === 'string' ? own.title : null, startsAt: own.start_time };
  }
  let next: Countdown | null = null;
  for (const item of scheduleOf(page.document)) {
    if (!item.showCountdown) continue;
    const startsAt = nextStartAfter(item, now);
    if (startsAt !== null && (!next || startsAt < next.startsAt)) next = { title: item.videoName, startsAt };
  }
  return next;
}
