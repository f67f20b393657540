/**
 * Checking a site's sender domain and keeping the answer: at once on request (verifySender), and again
 * every SENDER_RECHECK_MS for every sender (SenderRechecks), so a pending domain is verified once its
 * record appears and a verified one fails once the record is gone. Each instance of the community
 * subgraph runs the timer; a due check is claimed with a conditional update, so one instance makes it.
 */
import type { Config } from '../../../shared/config';
import type { Db } from '../../../shared/db/client';
import type { ReceiptEmail } from '../../../shared/db/generated/sqlite';
import type { Logger } from '../../../shared/logger';
import { checkSenderDns } from './dnsCheck';
import { dkimRecordName } from './records';

/** Senders one recheck pass looks at; the rest wait for the next pass. */
const PASS_SIZE = 100;
/** Checks of one pass that run at the same time (each waits on DNS, not on this process). */
const PARALLEL_CHECKS = 8;
/** The longest wait between two passes, whatever the recheck interval: a due sender waits at most this. */
const MAX_PASS_MS = 60_000;

/**
 * Checks the site's sender in DNS now and stores the verdict; answers the settings as they then are
 * (null without any). The verdict is kept only while the sender is the one checked and no check that
 * started later has written already, so a slow answer never overwrites a newer one.
 */
export async function verifySender(db: Db, config: Config, siteId: string): Promise<ReceiptEmail | null> {
  const settings = await db.receiptEmail.findUnique({ where: { siteId } });
  if (!settings?.domain || !settings.dkimPublicKey) return settings;
  const startedAt = new Date();
  const verdict = await checkSenderDns(config, { domain: settings.domain, dkimName: dkimRecordName(settings), publicKey: settings.dkimPublicKey });
  await db.receiptEmail.updateMany({
    where: { siteId, domain: settings.domain, dkimPublicKey: settings.dkimPublicKey, OR: [{ senderCheckedAt: null }, { senderCheckedAt: { lte: startedAt } }] },
    data: {
      senderStatus: verdict.status,
      senderProblem: verdict.problem,
      senderCheckedAt: startedAt,
      senderNextCheckAt: new Date(startedAt.getTime() + config.senderRecheckMs),
    },
  });
  return db.receiptEmail.findUnique({ where: { siteId } });
}

/** The timer that checks every sender again once its interval has passed. */
export class SenderRechecks {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  /** Starts the passes: every interval, but at least once a minute, so a due sender waits little. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(
      () => {
        // A pass still going (slow DNS) is not doubled.
        this.pass ??= this.checkDue()
          .catch((error: Error) => this.logger.warn({ err: error.message }, 'sender recheck pass failed'))
          .finally(() => (this.pass = null));
      },
      Math.min(this.config.senderRecheckMs, MAX_PASS_MS),
    );
    this.timer.unref();
  }

  /** Stops the passes and waits for the checks under way (a pass starts no further check). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.pass;
  }

  /**
   * One pass: checks the senders whose next check is due (or never planned: stored before checks
   * existed). Passes of several instances at once make each due check once.
   */
  async checkDue(): Promise<void> {
    const now = new Date();
    const due = await this.db.receiptEmail.findMany({
      where: { domain: { not: null }, dkimPublicKey: { not: null }, OR: [{ senderNextCheckAt: null }, { senderNextCheckAt: { lte: now } }] },
      select: { siteId: true, senderNextCheckAt: true, senderStatus: true },
      orderBy: { senderNextCheckAt: 'asc' },
      take: PASS_SIZE,
    });
    const queue = [...due];
    const worker = async () => {
      // A stopping server waits for the checks under way only, not for the rest of the pass.
      for (let row = queue.shift(); row && !this.stopping; row = queue.shift()) await this.recheck(row, now);
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_CHECKS, queue.length) }, worker));
  }

  /** Claims one due check (only one instance moves its next check on) and makes it. */
  private async recheck(row: Pick<ReceiptEmail, 'siteId' | 'senderNextCheckAt' | 'senderStatus'>, now: Date): Promise<void> {
    const claimed = await this.db.receiptEmail.updateMany({
      where: { siteId: row.siteId, senderNextCheckAt: row.senderNextCheckAt },
      data: { senderNextCheckAt: new Date(now.getTime() + this.config.senderRecheckMs) },
    });
    if (claimed.count !== 1) return;
    const settings = await verifySender(this.db, this.config, row.siteId);
    // Only a change is news: an hourly line per unchanged sender would drown the log.
    if (settings && settings.senderStatus !== row.senderStatus) {
      this.logger.info({ siteId: row.siteId, status: settings.senderStatus, problem: settings.senderProblem }, 'sender domain status changed');
    }
  }
}
