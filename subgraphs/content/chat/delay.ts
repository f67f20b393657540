/**
 * Messages that wait before their room (held for review, or delayed by `delay_seconds`) live in
 * ChatHeld until they leave it exactly once: a conditional update from `pending` decides whether a
 * message is approved, denied, deleted or published, whichever instance asks first, so a message deleted
 * within its delay can never be published, on any instance. A published message takes its seq then,
 * through the room's writer, so the room's one order holds. Delayed messages are published by the
 * instance that accepted them at their due time, and by any instance's sweep when that one stopped. A
 * claim whose write an instance never made (it stopped in between) is given back after a minute, so the
 * message is neither lost nor stored twice (it keeps its ID, ChatMessage's key).
 */
import type { Db } from '../../../shared/db/client';
import type { Logger } from '../../../shared/logger';
import type { ChatRow, ChatWriter, StoredChatRow } from './store';

/** How often an instance publishes what any instance left due. */
const SWEEP_MS = 1000;
const SWEEP_BATCH = 200;
/**
 * A claim (approved, published) older than this whose message is not stored was lost with the instance
 * that made it (stopped between the claim and the write): the message waits again, so it is neither lost
 * nor sent twice (the message keeps its ID, which ChatMessage's key holds once).
 */
const LOST_CLAIM_MS = 60_000;
/** How far back lost claims are looked for, and how often (also once when the instance starts). */
const LOST_CLAIM_WINDOW_MS = 60 * 60 * 1000;
const RECOVERY_EVERY_MS = 30_000;

/** A waiting message as it will be stored once it reaches its room (it takes its time and seq then). */
export type HeldRow = Omit<ChatRow, 'createdAt'>;

export type HeldOutcome = 'approved' | 'denied' | 'deleted' | 'published';

/** Moves a pending message to `status`; false when it had already left `pending` (a database fact). */
export async function decideHeld(db: Db, id: string, status: HeldOutcome): Promise<boolean> {
  const { count } = await db.chatHeld.updateMany({ where: { id, status: 'pending' }, data: { status, decidedAt: new Date() } });
  return count === 1;
}

/**
 * Whether the room's message `id` is still waiting (held for review or in its delay): such a message is
 * in no viewer's chat yet, so it can be neither pinned nor answered.
 */
export async function isWaiting(db: Db, siteId: string, panelId: string, id: string): Promise<boolean> {
  return (await db.chatHeld.count({ where: { id, siteId, panelId, status: 'pending' } })) > 0;
}

/** Claims a pending message and sends it to its room (its seq now); null when it had already left `pending`. */
export async function publishHeld(db: Db, writer: ChatWriter, row: HeldRow, status: 'approved' | 'published'): Promise<StoredChatRow | null> {
  if (!(await decideHeld(db, row.id, status))) return null;
  try {
    return await writer.write({ ...row, createdAt: new Date() });
  } catch (error) {
    // Not stored: it waits again, for the next approval or sweep.
    await db.chatHeld.updateMany({ where: { id: row.id, status }, data: { status: 'pending', decidedAt: null } });
    throw error;
  }
}

const HELD_ROW = {
  id: true,
  siteId: true,
  panelId: true,
  accountId: true,
  admin: true,
  text: true,
  liveBroadcastId: true,
  streamSecond: true,
  replyToId: true,
  replyAccountId: true,
  replyExcerpt: true,
} as const;

export class DuePublisher {
  private readonly sweep: NodeJS.Timeout;
  private readonly timers = new Set<NodeJS.Timeout>();
  private running: Promise<void> | null = null;
  private again = false;
  private recoveredAt = 0;

  constructor(
    private readonly db: Db,
    private readonly writer: ChatWriter,
    private readonly logger: Logger,
    /** Told of each delayed message this instance published (the moderators' DECIDED event). */
    private readonly published: (row: { id: string; siteId: string; panelId: string }) => void,
  ) {
    this.sweep = setInterval(() => this.publishDue(), SWEEP_MS);
    this.sweep.unref();
  }

  /** Publishes what is due when `dueAt` comes (a message this instance accepted). */
  at(dueAt: Date): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.publishDue();
      },
      Math.max(0, dueAt.getTime() - Date.now()),
    );
    timer.unref();
    this.timers.add(timer);
  }

  /** One pass at a time: due messages oldest first, each claimed and written in that order. */
  publishDue(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        if (Date.now() - this.recoveredAt >= RECOVERY_EVERY_MS) await this.recoverLostClaims();
        const rows = await this.db.chatHeld.findMany({
          where: { status: 'pending', dueAt: { lte: new Date() } },
          orderBy: [{ dueAt: 'asc' }, { createdAt: 'asc' }],
          take: SWEEP_BATCH,
          select: HELD_ROW,
        });
        for (const row of rows) if (await publishHeld(this.db, this.writer, row, 'published')) this.published(row);
        if (rows.length === SWEEP_BATCH) this.again = true;
      } while (this.again);
    })()
      .catch((error: Error) => this.logger.warn({ err: error.message }, 'could not publish delayed chat messages'))
      .finally(() => {
        this.running = null;
      });
  }

  private async recoverLostClaims(): Promise<void> {
    this.recoveredAt = Date.now();
    const before = new Date(this.recoveredAt - LOST_CLAIM_MS);
    const claims = await this.db.chatHeld.findMany({
      where: { status: { in: ['approved', 'published'] }, decidedAt: { lt: before, gte: new Date(before.getTime() - LOST_CLAIM_WINDOW_MS) } },
      select: { id: true, status: true, decidedAt: true },
      take: SWEEP_BATCH,
    });
    if (claims.length === 0) return;
    const stored = new Set(
      (await this.db.chatMessage.findMany({ where: { id: { in: claims.map((claim) => claim.id) } }, select: { id: true } })).map((row) => row.id),
    );
    for (const claim of claims.filter((entry) => !stored.has(entry.id))) {
      const { count } = await this.db.chatHeld.updateMany({
        where: { id: claim.id, status: claim.status, decidedAt: claim.decidedAt },
        data: { status: 'pending', decidedAt: null },
      });
      if (count === 1) this.logger.warn({ id: claim.id }, 'a chat message claimed by a stopped instance waits again');
    }
  }

  stop(): void {
    clearInterval(this.sweep);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
