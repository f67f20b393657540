/**
 * Delivers the webhook outbox: due deliveries are claimed (so several instances on one database never
 * send the same attempt twice at once), POSTed signed with the endpoint's secret, and either marked
 * delivered (2xx) or scheduled again with exponential backoff until WEBHOOK_MAX_ATTEMPTS. A delivery is
 * sent at least once: a crash between the receiver's 2xx and the mark only causes a repeat, which the
 * receiver drops by its delivery id.
 */
import { openSecret } from '../../shared/auth/sealed';
import { isNonPublicRefusal, outboundFetch, outboundPolicy } from '../../shared/outbound';
import type { Config } from '../../shared/config';
import type { Db } from '../../shared/db/client';
import type { Logger } from '../../shared/logger';
import { recordWebhookDelivery } from '../../shared/metrics';
import { signWebhook } from './webhooks';

/** Longest sleep between two looks at the outbox (deliveries written by other instances are found by then). */
const IDLE_POLL_MS = 2_000;
/** Most deliveries sent at once per instance. */
const BATCH = 20;

export type WebhookSettings = Pick<
  Config,
  'webhookTimeoutMs' | 'webhookRetryBaseMs' | 'webhookRetryMaxMs' | 'webhookMaxAttempts' | 'encryptionKey' | 'outboundAllowPrivate' | 'outboundAllowHosts'
>;

/** Delay before attempt number `attempt + 1`, after `attempt` failures: base · 2^(attempt-1), capped. */
export function retryDelayMs(settings: WebhookSettings, attempt: number): number {
  return Math.min(settings.webhookRetryMaxMs, settings.webhookRetryBaseMs * 2 ** Math.max(0, attempt - 1));
}

/** Sends the webhook deliveries a change wrote now, rather than at the dispatcher's next look. */
export interface WebhookWaker {
  kick(): void;
}

/** One per content service (its runtime): started with the server, stopped with it. */
export class WebhookDispatcher implements WebhookWaker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
  ) {}

  /** Looks at the outbox now (after a change wrote deliveries), and from then on as deliveries fall due. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.sweep()
      .catch((error: unknown) => this.logger.error({ err: error }, 'webhook sweep failed'))
      .then(() => this.scheduleNext())
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private async scheduleNext(): Promise<void> {
    if (this.stopped || this.again) return;
    const next = await this.db.webhookDelivery.findFirst({ where: { status: 'pending' }, orderBy: { nextAttemptAt: 'asc' }, select: { nextAttemptAt: true } });
    const wait = next ? Math.max(0, next.nextAttemptAt.getTime() - Date.now()) : IDLE_POLL_MS;
    if (this.stopped) return;
    this.timer = setTimeout(() => this.kick(), Math.min(wait, IDLE_POLL_MS));
    this.timer.unref();
  }

  private async sweep(): Promise<void> {
    for (;;) {
      const now = new Date();
      const due = await this.db.webhookDelivery.findMany({
        where: { status: 'pending', nextAttemptAt: { lte: now } },
        orderBy: { nextAttemptAt: 'asc' },
        take: BATCH,
        select: { id: true, nextAttemptAt: true },
      });
      if (due.length === 0 || this.stopped) return;
      await Promise.all(due.map((row) => this.attempt(row.id, row.nextAttemptAt)));
      if (due.length < BATCH) return;
    }
  }

  /** Claims one due delivery (by moving its due time past the attempt's timeout) and sends it. */
  private async attempt(id: string, dueAt: Date): Promise<void> {
    const lease = new Date(Date.now() + this.settings.webhookTimeoutMs + 5_000);
    const claimed = await this.db.webhookDelivery.updateMany({ where: { id, status: 'pending', nextAttemptAt: dueAt }, data: { nextAttemptAt: lease } });
    if (claimed.count !== 1) return;
    const delivery = await this.db.webhookDelivery.findUnique({ where: { id } });
    const endpoint = delivery && (await this.db.webhookEndpoint.findUnique({ where: { id: delivery.endpointId } }));
    if (!delivery) return;
    if (!endpoint || !endpoint.active) {
      await this.db.webhookDelivery.update({ where: { id }, data: { status: 'failed', lastError: 'the endpoint was removed or deactivated' } });
      recordWebhookDelivery('endpoint_gone', null);
      return;
    }
    const attempts = delivery.attempts + 1;
    const started = process.hrtime.bigint();
    const outcome = await this.send(endpoint.url, openSecret(endpoint.sealedSecret, this.settings.encryptionKey), delivery, attempts);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (outcome.ok) {
      recordWebhookDelivery('delivered', seconds);
      await this.db.webhookDelivery.update({
        where: { id },
        data: { status: 'delivered', attempts, deliveredAt: new Date(), lastStatusCode: outcome.status, lastError: null },
      });
      return;
    }
    const givenUp = attempts >= this.settings.webhookMaxAttempts;
    recordWebhookDelivery(givenUp ? 'failed' : 'retrying', seconds);
    await this.db.webhookDelivery.update({
      where: { id },
      data: {
        status: givenUp ? 'failed' : 'pending',
        attempts,
        lastStatusCode: outcome.status,
        lastError: outcome.error,
        nextAttemptAt: new Date(Date.now() + retryDelayMs(this.settings, attempts)),
      },
    });
    this.logger.warn({ deliveryId: id, endpointId: endpoint.id, attempts, status: outcome.status, givenUp }, 'webhook delivery failed');
  }

  private async send(url: string, secret: string, delivery: { id: string; event: string; body: string }, attempt: number) {
    try {
      const response = await outboundFetch(
        url,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'stagegraph-webhooks/1',
            'x-stagegraph-event': delivery.event,
            'x-stagegraph-delivery': delivery.id,
            'x-stagegraph-attempt': String(attempt),
            'x-stagegraph-signature': signWebhook(secret, Date.now(), delivery.body),
          },
          body: delivery.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.settings.webhookTimeoutMs),
        },
        outboundPolicy(this.settings),
      );
      await response.body?.cancel();
      const ok = response.status >= 200 && response.status < 300;
      return { ok, status: response.status, error: ok ? null : `answered ${response.status}` };
    } catch (error) {
      const name = (error as Error).name;
      const reason =
        name === 'TimeoutError'
          ? `no answer within ${this.settings.webhookTimeoutMs} ms`
          : isNonPublicRefusal(error)
            ? 'the endpoint is not a public address'
            : `could not reach the endpoint (${(error as Error).message})`;
      return { ok: false, status: null, error: reason };
    }
  }
}
