/**
 * E-mail: every message is first written to the MailMessage table, then, when SMTP_URL is set, sent
 * with nodemailer (pooled SMTP connections) and its body dropped. Without SMTP_URL it stays in the
 * outbox, which is the operator's (`npm run --silent cli -- outbox`): it may hold reset and login links
 * of any account, so no site API reads it. `npm start` needs no mail server. Delivery runs after the
 * answer (a caller never waits on, or learns from, the mail server) and is retried a few times.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../../shared/config';
import type { Db } from '../../shared/db/client';
import { newId } from '../../shared/ids';
import type { Logger } from '../../shared/logger';

export interface OutgoingMail {
  siteId: string | null;
  kind: 'password-reset' | 'receipt';
  to: string;
  from: string;
  replyTo?: string | null;
  subject: string;
  html: string;
  text: string;
  /** Signs the message as the site's domain with the key its DNS publishes. */
  dkim?: { domainName: string; keySelector: string; privateKey: string };
}

const RETRY_DELAYS_MS = [1_000, 5_000, 30_000];

export class Mailer {
  private transport: Transporter | null = null;
  private readonly pending = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly logger: Logger) {}

  private transportFor(config: Config): Transporter | null {
    if (!config.smtpUrl) return null;
    this.transport ??= nodemailer.createTransport(config.smtpUrl, { pool: true, maxConnections: 3 } as object);
    return this.transport;
  }

  /** Stores the message, then delivers it in the background when SMTP is configured. */
  async send(db: Db, config: Config, mail: OutgoingMail): Promise<string> {
    const transport = this.transportFor(config);
    const id = newId();
    await db.mailMessage.create({
      data: {
        id,
        siteId: mail.siteId,
        kind: mail.kind,
        to: mail.to,
        from: mail.from,
        replyTo: mail.replyTo ?? null,
        subject: mail.subject,
        html: mail.html,
        text: mail.text,
        status: transport ? 'sending' : 'outbox',
      },
    });
    if (transport && !this.closed) {
      const delivery = this.deliver(db, transport, id, mail).finally(() => this.pending.delete(delivery));
      this.pending.add(delivery);
    }
    return id;
  }

  private async deliver(db: Db, transport: Transporter, id: string, mail: OutgoingMail): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await transport.sendMail({
          from: mail.from,
          to: mail.to,
          replyTo: mail.replyTo ?? undefined,
          subject: mail.subject,
          html: mail.html,
          text: mail.text,
          dkim: mail.dkim,
        });
        // Sent: the body (which may hold a reset link) is not kept.
        await db.mailMessage.update({
          where: { id },
          data: { status: 'sent', sentAt: new Date(), attempts: attempt + 1, html: null, text: null, lastError: null },
        });
        return;
      } catch (error) {
        const message = (error as Error).message;
        const last = attempt >= RETRY_DELAYS_MS.length || this.closed;
        this.logger.warn({ mailId: id, attempt: attempt + 1, err: message }, last ? 'e-mail not delivered' : 'e-mail delivery failed, retrying');
        await db.mailMessage
          .update({ where: { id }, data: { status: last ? 'failed' : 'sending', attempts: attempt + 1, lastError: message } })
          .catch(() => undefined);
        if (last) return;
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]).unref());
      }
    }
  }

  /** Waits for deliveries under way (bounded), then closes the SMTP connections. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.race([Promise.allSettled([...this.pending]), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    this.transport?.close();
    this.transport = null;
  }
}

/** A message waiting in the outbox, as the operator's CLI prints it. */
export interface WaitingMail {
  id: string;
  /** null for a global account's mail, which belongs to no single site. */
  siteId: string | null;
  kind: string;
  to: string;
  from: string;
  subject: string;
  text: string | null;
  html: string | null;
  created: number;
}

/** Mail waiting in the outbox (no SMTP_URL), oldest first; optionally of one site or one recipient. */
export async function waitingMail(db: Db, filter: { siteId?: string; to?: string; limit?: number } = {}): Promise<WaitingMail[]> {
  const rows = await db.mailMessage.findMany({
    where: { status: 'outbox', ...(filter.siteId ? { siteId: filter.siteId } : {}), ...(filter.to ? { to: filter.to } : {}) },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: filter.limit ?? 100,
  });
  return rows.map((row) => ({
    id: row.id,
    siteId: row.siteId,
    kind: row.kind,
    to: row.to,
    from: row.from,
    subject: row.subject,
    text: row.text,
    html: row.html,
    created: row.createdAt.getTime(),
  }));
}
