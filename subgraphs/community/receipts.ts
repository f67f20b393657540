/**
 * Receipt e-mail: a site may send receipts as its own domain once its DNS authorizes the service
 * (senders/), and with its own Handlebars HTML template; otherwise the default sender and template are
 * used. A receipt is sent when an entitlement is bought. Templates are compiled once per version and
 * rendered with HTML escaping; Handlebars refuses prototype access.
 */
import Handlebars from 'handlebars';
import type { Config } from '../../shared/config';
import type { Db } from '../../shared/db/client';
import type { Account, Charge, ReceiptEmail } from '../../shared/db/generated/sqlite';
import { badInput } from '../../shared/errors';
import type { Logger } from '../../shared/logger';
import type { SupergraphClient } from '../../shared/supergraph';
import type { Identity } from '../../shared/auth/identity';
import type { Mailer } from './mail';
import { formatMoney } from './money';
import { verifiedSenderOf } from './senders/records';
import { checkText } from './validation';

const MAX_TEMPLATE_LENGTH = 100_000;

/** What a receipt template may use. */
export const RECEIPT_VARIABLES = [
  'thankYouMessage',
  'receiptNumber',
  'ticketName',
  'sku',
  'purchaseDate',
  'purchaseTime',
  'quantity',
  'accessInstructions',
  'eventUrl',
  'paymentMethod',
  'ticketPrice',
  'serviceCharge',
  'tax',
  'totalAmount',
  'currency',
  'customerName',
  'customerEmail',
  'senderName',
  'logoUrl',
  'siteName',
] as const;

export type ReceiptData = Record<(typeof RECEIPT_VARIABLES)[number], string | number | null>;

export const DEFAULT_SUBJECT = 'Your receipt {{receiptNumber}} for {{ticketName}}';

export const DEFAULT_TEMPLATE = `<!doctype html>
<html><body style="font-family: sans-serif; color: #222; max-width: 560px; margin: auto">
{{#if logoUrl}}<p><img src="{{logoUrl}}" alt="{{senderName}}" style="max-height: 64px"></p>{{/if}}
<h1 style="font-size: 20px">{{thankYouMessage}}</h1>
<table cellpadding="6" style="border-collapse: collapse; width: 100%">
  <tr><td>Receipt number</td><td>{{receiptNumber}}</td></tr>
  <tr><td>Ticket</td><td>{{ticketName}}</td></tr>
  <tr><td>Purchased</td><td>{{purchaseDate}} {{purchaseTime}}</td></tr>
  <tr><td>Quantity</td><td>{{quantity}}</td></tr>
  <tr><td>Payment method</td><td>{{paymentMethod}}</td></tr>
  <tr><td>Ticket price</td><td>{{ticketPrice}}</td></tr>
  <tr><td>Service charge</td><td>{{serviceCharge}}</td></tr>
  <tr><td>Tax</td><td>{{tax}}</td></tr>
  <tr><td><strong>Total</strong></td><td><strong>{{totalAmount}}</strong></td></tr>
</table>
{{#if accessInstructions}}<h2 style="font-size: 16px">How to watch</h2><p>{{accessInstructions}}</p>{{/if}}
{{#if eventUrl}}<p><a href="{{eventUrl}}">Go to the event</a></p>{{/if}}
<p style="color: #777; font-size: 12px">{{senderName}}</p>
</body></html>`;

// ------------------------------------------------------------------ templates

/** Compiles a template; the subject is plain text (not HTML-escaped), the body HTML (escaped). */
function compile(source: string, field: 'subject' | 'template'): HandlebarsTemplateDelegate {
  try {
    // Compiling eagerly (not on first render) so a broken template is refused when it is saved.
    const template = Handlebars.compile(source, { strict: false, knownHelpersOnly: true, noEscape: field === 'subject' });
    template({});
    return template;
  } catch (error) {
    throw badInput(`${field} is not a valid Handlebars template: ${(error as Error).message.split('\n')[0]}`, field);
  }
}

/** The subject and template in use: the site's own, or the default. */
export function templateOf(settings: ReceiptEmail | null) {
  const custom = Boolean(settings?.template);
  return {
    subject: custom ? (settings?.subject ?? DEFAULT_SUBJECT) : DEFAULT_SUBJECT,
    template: settings?.template ?? DEFAULT_TEMPLATE,
    custom,
    variables: [...RECEIPT_VARIABLES],
  };
}

/** Saves a custom subject and template after compiling both, so a broken one is refused now. */
export async function setReceiptTemplate(db: Db, siteId: string, subject: string, template: string) {
  const checkedSubject = checkText(subject, 'subject', 300);
  if (!template.trim()) throw badInput('template must not be empty', 'template');
  if (template.length > MAX_TEMPLATE_LENGTH) throw badInput(`template must be at most ${MAX_TEMPLATE_LENGTH} characters`, 'template');
  compile(checkedSubject, 'subject');
  compile(template, 'template');
  const settings = await db.receiptEmail.upsert({
    where: { siteId },
    create: { siteId, subject: checkedSubject, template },
    update: { subject: checkedSubject, template, updatedAt: new Date() },
  });
  return templateOf(settings);
}

/** Drops the custom template: receipts use the default again. */
export async function deleteReceiptTemplate(db: Db, siteId: string) {
  const settings = await db.receiptEmail.findUnique({ where: { siteId } });
  if (!settings) return templateOf(null);
  return templateOf(await db.receiptEmail.update({ where: { siteId }, data: { subject: null, template: null, updatedAt: new Date() } }));
}

/** Compiled templates by site and version, so a template compiles once, not per receipt. */
export class TemplateCache {
  private readonly compiled = new Map<string, { subject: HandlebarsTemplateDelegate; html: HandlebarsTemplateDelegate }>();

  get(settings: ReceiptEmail | null) {
    const { subject, template, custom } = templateOf(settings);
    const key = custom && settings ? `${settings.siteId}:${settings.updatedAt.getTime()}` : 'default';
    let entry = this.compiled.get(key);
    if (!entry) {
      if (this.compiled.size >= 1000) this.compiled.delete(this.compiled.keys().next().value as string);
      entry = { subject: compile(subject, 'subject'), html: compile(template, 'template') };
      this.compiled.set(key, entry);
    }
    return entry;
  }
}

// ------------------------------------------------------------------ sending

// The channels only when the purchase names no event: a receipt's "link to event" is then the channel its SKU opens.
const SITE_PROFILE = /* GraphQL */ `query ReceiptSiteProfile($channels: Boolean!) {
  site { name settings }
  pages(type: channel, sortBy: created, sortDirection: 1) @include(if: $channels) { id gateSkus }
}`;

interface SiteProfile {
  name: string;
  accessInstructions: string | null;
  logoUrl: string | null;
  senderName: string | null;
  /** The oldest channel whose gate asks for one of the SKUs asked about (null: none, or not asked). */
  channelId: string | null;
}

interface ProfileAnswer {
  site: { name: string; settings: Record<string, unknown> | null } | null;
  pages?: { id: string; gateSkus: string[] }[];
}

/**
 * The site's name and receipt profile (access instructions, logo, sender name) from the content subgraph, and,
 * when `opens` is given, the channel a purchase of those SKUs lets its buyer watch.
 */
async function siteProfile(supergraph: SupergraphClient, identity: Identity, logger: Logger, opens: readonly string[] | null): Promise<SiteProfile> {
  try {
    const { site, pages } = await supergraph.execute<ProfileAnswer>(SITE_PROFILE, { channels: opens !== null }, identity);
    const settings = site?.settings ?? {};
    const profile = (typeof settings.profile === 'object' && settings.profile ? settings.profile : settings) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' && value ? value : null);
    const channel = opens ? pages?.find((page) => page.gateSkus.some((sku) => opens.includes(sku))) : undefined;
    return {
      name: site?.name ?? '',
      accessInstructions: text(profile.accessInstructions),
      logoUrl: text(profile.logoUrl) ?? text(profile.logo),
      senderName: text(profile.senderName),
      channelId: channel?.id ?? null,
    };
  } catch (error) {
    logger.warn({ err: (error as Error).message }, 'site profile unavailable; receipt uses defaults');
    return { name: '', accessInstructions: null, logoUrl: null, senderName: null, channelId: null };
  }
}

/** A channel's watch page where viewers reach this service (PUBLIC_URL). */
export function watchPageUrl(publicUrl: string, siteId: string, channelId: string): string {
  return `${publicUrl}/embed/v1/watch?${new URLSearchParams({ siteId, channelId }).toString()}`;
}

/**
 * The default sender's address under the name the site's profile gives (ADMIN > SETTINGS > Profile, seed
 * 001): the name as one quoted display name (no line breaks, quotes or backslashes that could end it).
 */
export function namedSender(name: string, defaultFrom: string): string {
  const address = /<([^<>]+)>\s*$/.exec(defaultFrom)?.[1] ?? defaultFrom.trim();
  const display = name
    .replace(/[\r\n"\\]+/g, ' ')
    .trim()
    .slice(0, 100);
  return display ? `"${display}" <${address}>` : defaultFrom;
}

export interface ReceiptContext {
  db: Db;
  config: Config;
  logger: Logger;
  supergraph: SupergraphClient;
  mailer: Mailer;
  templates: TemplateCache;
}

/** E-mails the receipt of a purchase to the buyer: from the site's domain while it is verified, else the default sender. */
export async function sendReceipt(
  context: ReceiptContext,
  siteId: string,
  purchase: { account: Account; sold: { name: string; sku: string; opens: readonly string[] }; charge: Charge; eventUrl?: string | null },
  requestId: string,
): Promise<string> {
  const { db, config, mailer, templates } = context;
  const identity: Identity = { siteId, developerKey: true, account: null, requestId };
  const [settings, profile] = await Promise.all([
    db.receiptEmail.findUnique({ where: { siteId } }),
    siteProfile(context.supergraph, identity, context.logger, purchase.eventUrl ? null : purchase.sold.opens),
  ]);
  const { charge, account, sold } = purchase;
  const sender = verifiedSenderOf(settings, config);
  const senderName = sender?.fromName ?? profile.senderName ?? (profile.name || 'stagegraph');
  const money = (minor: number) => formatMoney(minor, charge.currency);
  const data: ReceiptData = {
    thankYouMessage: `Thank you for your purchase${account.name ? `, ${account.name}` : ''}!`,
    receiptNumber: charge.receiptNumber,
    ticketName: sold.name,
    sku: sold.sku,
    purchaseDate: charge.createdAt.toISOString().slice(0, 10),
    purchaseTime: `${charge.createdAt.toISOString().slice(11, 16)} UTC`,
    quantity: charge.quantity,
    accessInstructions: profile.accessInstructions,
    eventUrl: purchase.eventUrl || (profile.channelId ? watchPageUrl(config.publicUrl, siteId, profile.channelId) : null),
    paymentMethod: charge.paymentMethod,
    ticketPrice: money(charge.priceMinor),
    serviceCharge: money(charge.serviceMinor),
    tax: money(charge.taxMinor),
    totalAmount: money(charge.amountMinor),
    currency: charge.currency,
    customerName: account.name,
    customerEmail: account.email,
    senderName,
    logoUrl: profile.logoUrl,
    siteName: profile.name,
  };
  const compiled = templates.get(settings);
  const html = compiled.html(data);
  const lines = [
    data.thankYouMessage,
    `Receipt number: ${data.receiptNumber}`,
    `Ticket: ${data.ticketName} × ${data.quantity}`,
    `Purchased: ${data.purchaseDate} ${data.purchaseTime}`,
    `Payment method: ${data.paymentMethod}`,
    `Ticket price: ${data.ticketPrice}; service charge: ${data.serviceCharge}; tax: ${data.tax}`,
    `Total: ${data.totalAmount}`,
    ...(data.accessInstructions ? [`How to watch: ${data.accessInstructions}`] : []),
    ...(data.eventUrl ? [`Event: ${data.eventUrl}`] : []),
  ];
  return mailer.send(db, config, {
    siteId,
    kind: 'receipt',
    to: account.email,
    from: sender ? `"${sender.fromName}" <${sender.fromEmail}>` : profile.senderName ? namedSender(profile.senderName, config.mailFrom) : config.mailFrom,
    replyTo: sender?.replyToEmail ?? null,
    subject: compiled.subject(data).replace(/[\r\n]+/g, ' '),
    html,
    text: lines.join('\n'),
    dkim: sender?.dkim,
  });
}
