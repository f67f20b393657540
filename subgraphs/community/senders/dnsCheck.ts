/**
 * Whether a domain lets the service send as it, asked of DNS through Node's resolver (at DNS_SERVERS
 * when set): the DKIM TXT record at <selector>._domainkey.<domain> carrying the site's public key, or
 * the domain's SPF record including the mail provider. Every lookup has a deadline, and every outcome,
 * a timeout or a refusing server included, is an answer in words, never an exception.
 */
import { promises as dns } from 'node:dns';
import type { Config } from '../../../shared/config';

/** What a check found: verified, or failed with the reason in words. */
export interface SenderDnsVerdict {
  status: 'verified' | 'failed';
  problem: string | null;
}

/** The sender a check looks for: its domain, the DKIM record's name and the site's public key (base64 DER). */
export interface SenderDnsQuestion {
  domain: string;
  dkimName: string;
  publicKey: string;
}

type TxtLookup = { records: string[] } | { failure: string };

/** Answers that say the name or its TXT record does not exist: nothing published, not a failure. */
const ABSENT = new Set<string>([dns.NOTFOUND, dns.NODATA]);

async function txtRecords(resolver: dns.Resolver, name: string, timeoutMs: number): Promise<TxtLookup> {
  try {
    // A long TXT value arrives in strings of at most 255 bytes; together they are one record.
    return { records: (await resolver.resolveTxt(name)).map((strings) => strings.join('')) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'an unknown error';
    if (ABSENT.has(code)) return { records: [] };
    if (code === dns.TIMEOUT || code === dns.CANCELLED) return { failure: `DNS gave no answer for ${name} within ${timeoutMs} ms` };
    return { failure: `DNS lookup of ${name} failed (${code})` };
  }
}

/** The tags of a DKIM record (`v=DKIM1; k=rsa; p=…`), names lowercased, spaces of values removed. */
function dkimTags(record: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of record.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) tags.set(part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).replace(/\s+/g, ''));
  }
  return tags;
}

/** Whether a DKIM record carries the site's key; what is wrong when records are there but none does. */
function judgeDkim(records: string[], question: SenderDnsQuestion): { verified: boolean; problem: string | null } {
  const keys = records.map(dkimTags).filter((tags) => tags.has('p'));
  if (keys.some((tags) => tags.get('p') === question.publicKey)) return { verified: true, problem: null };
  if (keys.length > 0)
    return {
      verified: false,
      problem: `the DKIM record at ${question.dkimName} carries another public key than the site's (publish the value GET /customemail/v1/sender shows)`,
    };
  if (records.length > 0) return { verified: false, problem: `the TXT record at ${question.dkimName} is not a DKIM key (it has no p= tag)` };
  return { verified: false, problem: null };
}

/** Whether the domain's one SPF record includes the provider with a passing qualifier. */
function judgeSpf(records: string[], domain: string, include: string): { verified: boolean; problem: string | null } {
  const spf = records.filter((record) => /^v=spf1(\s|$)/i.test(record.trim()));
  if (spf.length === 0) return { verified: false, problem: null };
  // RFC 7208 4.5: more than one SPF record is a permanent error, whatever they say.
  if (spf.length > 1) return { verified: false, problem: `${domain} publishes ${spf.length} SPF records; receivers honour only one` };
  const wanted = include.toLowerCase().replace(/\.$/, '');
  const term = spf[0]
    .split(/\s+/)
    .map((item) => /^([+?~-]?)include:(.+)$/i.exec(item))
    .find((match) => match && match[2].toLowerCase().replace(/\.$/, '') === wanted);
  if (!term) return { verified: false, problem: `the SPF record of ${domain} does not include include:${include}` };
  if (term[1] && term[1] !== '+')
    return {
      verified: false,
      problem: `the SPF record of ${domain} includes include:${include} with the qualifier ${term[1]}, which does not let the service send`,
    };
  return { verified: true, problem: null };
}

/**
 * Asks DNS for the sender's DKIM and SPF records (at once) and judges them: verified when either
 * authorizes the service; otherwise failed with every reason found, or "no DKIM or SPF record found".
 */
export async function checkSenderDns(
  config: Pick<Config, 'dnsServers' | 'dnsTimeoutMs' | 'mailSpfInclude'>,
  question: SenderDnsQuestion,
): Promise<SenderDnsVerdict> {
  // One attempt per question: the deadline is the whole check's, not a per-try timeout of four tries.
  const resolver = new dns.Resolver({ timeout: config.dnsTimeoutMs, tries: 1 });
  if (config.dnsServers) resolver.setServers(config.dnsServers);
  // The deadline itself: c-ares stretches short timeouts (300 ms gave up after ~600 ms on Node 20), and
  // a lookup cancelled here answers ECANCELLED, reported as a timeout like ETIMEOUT.
  const guard = setTimeout(() => resolver.cancel(), config.dnsTimeoutMs);
  try {
    const [dkimLookup, spfLookup] = await Promise.all([
      txtRecords(resolver, question.dkimName, config.dnsTimeoutMs),
      txtRecords(resolver, question.domain, config.dnsTimeoutMs),
    ]);
    const dkim = 'records' in dkimLookup ? judgeDkim(dkimLookup.records, question) : { verified: false, problem: dkimLookup.failure };
    const spf = 'records' in spfLookup ? judgeSpf(spfLookup.records, question.domain, config.mailSpfInclude) : { verified: false, problem: spfLookup.failure };
    if (dkim.verified || spf.verified) return { status: 'verified', problem: null };
    const problems = [dkim.problem, spf.problem].filter((problem): problem is string => problem !== null);
    return { status: 'failed', problem: problems.length > 0 ? problems.join('; ') : 'no DKIM or SPF record found' };
  } finally {
    clearTimeout(guard);
  }
}
