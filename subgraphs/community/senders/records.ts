/**
 * A site's receipt sender: its domain, addresses and DKIM key pair (the private half encrypted at rest,
 * the public half published by the site in DNS), and where its DNS check stands. Receipts go from the
 * site's domain only while the sender is verified (verifiedSenderOf); every other state falls back to
 * the service's default sender, so mail never leaves from a domain that has not authorized it.
 */
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { Config } from '../../../shared/config';
import type { Db } from '../../../shared/db/client';
import type { ReceiptEmail } from '../../../shared/db/generated/sqlite';
import { badInput } from '../../../shared/errors';
import { decryptSecret, encryptSecret } from '../secrets';
import { checkDomain, checkEmail, checkText } from '../validation';

const generateRsaKeyPair = promisify(generateKeyPair);

/** The DKIM selector the site publishes its key under: <selector>._domainkey.<domain>. */
export const DKIM_SELECTOR = 'stagegraph';

/** Where a sender's DNS check stands: receipts use the site's domain only while it is verified. */
export type SenderStatus = 'pending' | 'verified' | 'failed';

export interface DnsRecord {
  purpose: 'dkim' | 'spf';
  type: 'TXT';
  name: string;
  value: string;
}

/** The name of the DKIM record of a sender: <selector>._domainkey.<domain>. */
export function dkimRecordName(settings: Pick<ReceiptEmail, 'dkimSelector' | 'domain'>): string {
  return `${settings.dkimSelector ?? DKIM_SELECTOR}._domainkey.${settings.domain}`;
}

/** The records the site publishes: DKIM with its public key, or SPF including the mail provider. */
export function dnsRecordsOf(settings: ReceiptEmail, config: Pick<Config, 'mailSpfInclude'>): DnsRecord[] {
  if (!settings.domain || !settings.dkimPublicKey) return [];
  return [
    { purpose: 'dkim', type: 'TXT', name: dkimRecordName(settings), value: `v=DKIM1; k=rsa; p=${settings.dkimPublicKey}` },
    // The neutral qualifier: the provider is the domain's only sender the service knows of.
    { purpose: 'spf', type: 'TXT', name: settings.domain, value: `v=spf1 include:${config.mailSpfInclude} ?all` },
  ];
}

/** The site's sender with its DNS records and check, or null while it has none. */
export function senderOf(settings: ReceiptEmail | null, config: Pick<Config, 'mailSpfInclude'>) {
  if (!settings?.domain || !settings.fromEmail || !settings.fromName || !settings.replyToEmail) return null;
  return {
    domain: settings.domain,
    fromEmail: settings.fromEmail,
    fromName: settings.fromName,
    replyToEmail: settings.replyToEmail,
    // A sender stored before domains were checked has no status yet: it waits for its first check.
    status: (settings.senderStatus ?? 'pending') as SenderStatus,
    dnsRecords: dnsRecordsOf(settings, config),
    checkedAt: settings.senderCheckedAt?.getTime() ?? null,
    problem: settings.senderProblem,
  };
}

/** The sender receipts go from, signed with the site's key, when its domain is verified; null otherwise. */
export function verifiedSenderOf(settings: ReceiptEmail | null, config: Pick<Config, 'mailSpfInclude' | 'encryptionKey'>) {
  const sender = senderOf(settings, config);
  if (!settings?.dkimPrivateKeyEncrypted || sender?.status !== 'verified') return null;
  const dkim = {
    domainName: sender.domain,
    keySelector: settings.dkimSelector ?? DKIM_SELECTOR,
    privateKey: decryptSecret(settings.dkimPrivateKeyEncrypted, config.encryptionKey),
  };
  return { ...sender, dkim };
}

/**
 * Sets the site's sender. A new domain gets a new key and starts pending, its first recheck one interval
 * away (POST /customemail/v1/sender/verify checks at once). The same domain keeps its key and where its
 * check stands: its DNS need not change, so a verified sender renamed stays verified.
 */
export async function setReceiptSender(
  db: Db,
  config: Config,
  siteId: string,
  input: { domain: string; fromEmail: string; fromName: string; replyToEmail: string },
) {
  const domain = checkDomain(input.domain);
  const fromEmail = checkEmail(input.fromEmail, 'fromEmail');
  const fromDomain = fromEmail.split('@')[1];
  if (fromDomain !== domain && !fromDomain.endsWith(`.${domain}`)) throw badInput(`fromEmail must be an address at ${domain}`, 'fromEmail');
  const fromName = checkText(input.fromName, 'fromName', 100).replace(/[\r\n"<>]/g, '');
  const replyToEmail = checkEmail(input.replyToEmail, 'replyToEmail');
  const current = await db.receiptEmail.findUnique({ where: { siteId } });
  const keep = current?.domain === domain && current.dkimPublicKey && current.dkimPrivateKeyEncrypted;
  let key: { dkimPublicKey: string; dkimPrivateKeyEncrypted: string };
  let check: Partial<Pick<ReceiptEmail, 'senderStatus' | 'senderCheckedAt' | 'senderProblem' | 'senderNextCheckAt'>> = {};
  if (keep) {
    key = { dkimPublicKey: current.dkimPublicKey as string, dkimPrivateKeyEncrypted: current.dkimPrivateKeyEncrypted as string };
  } else {
    const pair = await generateRsaKeyPair('rsa', { modulusLength: 2048 });
    key = {
      dkimPublicKey: pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
      dkimPrivateKeyEncrypted: encryptSecret(pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), config.encryptionKey),
    };
    check = { senderStatus: 'pending', senderCheckedAt: null, senderProblem: null, senderNextCheckAt: new Date(Date.now() + config.senderRecheckMs) };
  }
  const fields = { domain, fromEmail, fromName, replyToEmail, dkimSelector: DKIM_SELECTOR, ...key, ...check, updatedAt: new Date() };
  const settings = await db.receiptEmail.upsert({ where: { siteId }, create: { siteId, ...fields }, update: fields });
  return senderOf(settings, config) as NonNullable<ReturnType<typeof senderOf>>;
}
