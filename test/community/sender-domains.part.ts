/**
 * Receipts from a site's own domain only once its DNS authorizes the service: a real DNS server on
 * loopback (dnsmasq serving the TXT records each case publishes, and a silent one for timeouts), the
 * stack asking it through DNS_SERVERS, and a real SMTP server whose mail is checked — From, and the
 * DKIM-Signature verified against the key the test reads back from DNS.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Stack } from '../../stack';
import { createSku, join, purchase, viewer } from '../helpers/community';
import { verifyDkim } from '../helpers/dkim';
import { startSilentDns, startTestDns, type TestDns, type TxtRecords } from '../helpers/dns';
import { graphql, rest } from '../helpers/http';
import { startFakeSmtp, type FakeSmtp } from '../helpers/smtp';
import { createLogger } from '../../shared/logger';
import { SenderRechecks } from '../../subgraphs/community/senders/verification';
import { createTestSite, startTestStack, stopAll, type TestSite } from '../helpers/stack';
import { expectStatus, until } from '../helpers/wait';

const MAIL_ENV = { MAIL_FROM: 'Stagegraph <no-reply@stagegraph.test>', MAIL_SPF_INCLUDE: '_spf.mail.stagegraph.test' };
const DEFAULT_SENDER = [{ name: 'Stagegraph', address: 'no-reply@stagegraph.test' }];

interface SenderCheck {
  domain: string;
  fromEmail: string;
  status: 'pending' | 'verified' | 'failed';
  records: { type: string; name: string; value: string }[];
  checkedAt: number | null;
  problem: string | null;
}

let dns: TestDns;
let smtp: FakeSmtp;
let stack: Stack;
/** What the DNS server serves: each case adds its domain's records. */
const published: Record<string, string[]> = {};

beforeAll(async () => {
  [dns, smtp] = await Promise.all([startTestDns(), startFakeSmtp()]);
  stack = await startTestStack({ env: { SMTP_URL: smtp.url, DNS_SERVERS: dns.server, ...MAIL_ENV } });
});
afterAll(async () => {
  await stopAll();
  await Promise.all([dns.close(), smtp.close()]);
});

async function publish(records: TxtRecords): Promise<void> {
  Object.assign(published, records);
  await dns.setRecords(published);
}

/** A site with a SKU to buy and a sender at `domain` (pending), with the records it is told to publish. */
async function siteWithSender(
  on: Stack,
  domain: string,
): Promise<{ site: TestSite; dkim: { name: string; value: string }; spf: { name: string; value: string } }> {
  const site = await createTestSite(on, domain);
  await createSku(on, site, 'finals', { value: 25, name: 'Finals ticket' });
  const added = await rest(on, 'PUT', '/customemail/v1/add-sender-email/', {
    headers: site.admin,
    body: { domain, fromEmail: `tickets@${domain}`, fromName: 'Arena Tickets', replyToEmail: `help@${domain}` },
  });
  expect(added.status).toBe(200);
  expect(added.body.status).toBe('pending');
  const sender = (await rest<SenderCheck>(on, 'GET', '/customemail/v1/sender', { headers: site.admin })).body;
  const [dkim, spf] = sender.records;
  return { site, dkim, spf };
}

const verifyNow = (on: Stack, site: TestSite) => rest<SenderCheck>(on, 'POST', '/customemail/v1/sender/verify', { headers: site.admin });

/** The receipt of a new purchase on the site, as the SMTP server received it. */
async function receiptOf(on: Stack, site: TestSite) {
  const member = await join(on, site);
  await purchase(on, site, member);
  return smtp.next(member.email);
}

describe('the profile’s sender name (ADMIN > SETTINGS > Profile)', () => {
  const setProfile = (site: TestSite, profile: Record<string, unknown>) =>
    graphql(
      stack,
      /* GraphQL */ `mutation Profile($settings: JSON) { updateSite(input: { settings: $settings }) { id } }`,
      { settings: { profile } },
      site.admin,
    );

  it('is the From name of receipts from the default sender, as one display name whatever it holds', async () => {
    const site = await createTestSite(stack, 'Box office site');
    await createSku(stack, site, 'finals', { value: 25, name: 'Finals ticket' });
    expect((await setProfile(site, { senderName: 'Arena Box Office' })).body.errors).toBeUndefined();
    const mail = await receiptOf(stack, site);
    expect(mail.parsed.from?.value).toEqual([{ name: 'Arena Box Office', address: DEFAULT_SENDER[0].address }]);

    // A name that tries to end the header, or the display name, stays one display name of the default address.
    expect((await setProfile(site, { senderName: 'Arena "Box"\r\nBcc: victim@example.test' })).body.errors).toBeUndefined();
    const hostile = await receiptOf(stack, site);
    expect(hostile.parsed.from?.value).toEqual([{ name: expect.stringContaining('Arena'), address: DEFAULT_SENDER[0].address }]);
    expect(hostile.parsed.bcc).toBeUndefined();
    expect(hostile.parsed.headers.has('bcc')).toBe(false);
  });
});

describe('checking a sender domain in DNS', () => {
  it('answers 404 with a clear message before a sender is added, and pending with the records to publish after', async () => {
    const site = await createTestSite(stack, 'No sender yet');
    const none = await rest(stack, 'GET', '/customemail/v1/sender', { headers: site.admin });
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ success: false, message: expect.stringMatching(/no receipt sender was added.*PUT \/customemail\/v1\/add-sender-email\//) });
    expect((await rest(stack, 'POST', '/customemail/v1/sender/verify', { headers: site.admin })).status).toBe(404);

    const { site: withSender } = await siteWithSender(stack, 'pending.example.test');
    const read = await rest<SenderCheck>(stack, 'GET', '/customemail/v1/sender', { headers: withSender.admin });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      domain: 'pending.example.test',
      fromEmail: 'tickets@pending.example.test',
      fromName: 'Arena Tickets',
      replyToEmail: 'help@pending.example.test',
      status: 'pending',
      records: [
        { type: 'TXT', name: 'stagegraph._domainkey.pending.example.test', value: expect.stringMatching(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+={0,2}$/) },
        { type: 'TXT', name: 'pending.example.test', value: 'v=spf1 include:_spf.mail.stagegraph.test ?all' },
      ],
      checkedAt: null,
      problem: null,
    });
    // Pending sends from the default sender.
    expect((await receiptOf(stack, withSender)).parsed.from?.value).toEqual(DEFAULT_SENDER);
  });

  it('verifies the DKIM record carrying the site’s key: receipts come from the site’s domain with a DKIM-Signature that verifies', async () => {
    const { site, dkim } = await siteWithSender(stack, 'dkim.example.test');
    await publish({ [dkim.name]: [dkim.value] });
    const before = Date.now();
    const verified = await verifyNow(stack, site);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ domain: 'dkim.example.test', status: 'verified', problem: null });
    expect(verified.body.checkedAt).toBeGreaterThanOrEqual(before - 1000);
    expect((await rest<SenderCheck>(stack, 'GET', '/customemail/v1/sender', { headers: site.admin })).body).toEqual(verified.body);

    const mail = await receiptOf(stack, site);
    expect(mail.parsed.from?.value).toEqual([{ name: 'Arena Tickets', address: 'tickets@dkim.example.test' }]);
    expect(mail.parsed.replyTo?.value).toEqual([{ name: '', address: 'help@dkim.example.test' }]);
    // The key a receiving server would fetch: the published record, read back from DNS.
    const [record] = await dns.txt('stagegraph._domainkey.dkim.example.test');
    const publicKey = /p=([A-Za-z0-9+/=]+)/.exec(record)?.[1] ?? '';
    expect(verifyDkim(mail.raw, publicKey)).toEqual({ domain: 'dkim.example.test', selector: 'stagegraph', bodyHashMatches: true, signatureValid: true });
  });

  it('fails a DKIM record with another key, saying so; receipts come from the default sender, unsigned', async () => {
    const { site, dkim } = await siteWithSender(stack, 'wrongkey.example.test');
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    await publish({ [dkim.name]: [`v=DKIM1; k=rsa; p=${otherKey}`] });
    const failed = await verifyNow(stack, site);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: 'failed', checkedAt: expect.any(Number) });
    expect(failed.body.problem).toMatch(/^the DKIM record at stagegraph\._domainkey\.wrongkey\.example\.test carries another public key than the site's/);
    const mail = await receiptOf(stack, site);
    expect(mail.parsed.from?.value).toEqual(DEFAULT_SENDER);
    expect(mail.raw).not.toMatch(/^DKIM-Signature:/m);
  });

  it('verifies an SPF record that includes the provider', async () => {
    const { site, spf } = await siteWithSender(stack, 'spf.example.test');
    await publish({ [spf.name]: [spf.value, 'google-site-verification=unrelated'] });
    const verified = await verifyNow(stack, site);
    expect(verified.body).toMatchObject({ status: 'verified', problem: null });
    const mail = await receiptOf(stack, site);
    expect(mail.parsed.from?.value).toEqual([{ name: 'Arena Tickets', address: 'tickets@spf.example.test' }]);
  });

  it('fails an SPF record without the provider’s include, naming it', async () => {
    const { site } = await siteWithSender(stack, 'otherspf.example.test');
    await publish({ 'otherspf.example.test': ['v=spf1 include:_spf.elsewhere.test ~all'] });
    const failed = await verifyNow(stack, site);
    expect(failed.body).toMatchObject({
      status: 'failed',
      problem: 'the SPF record of otherspf.example.test does not include include:_spf.mail.stagegraph.test',
    });
  });

  it('fails a domain with neither record: "no DKIM or SPF record found"', async () => {
    const { site } = await siteWithSender(stack, 'nothing.example.test');
    const failed = await verifyNow(stack, site);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: 'failed', problem: 'no DKIM or SPF record found', checkedAt: expect.any(Number) });
    expect((await receiptOf(stack, site)).parsed.from?.value).toEqual(DEFAULT_SENDER);
  });

  it('needs C + D or J with the CustomEmail scope; another site sees no sender (404)', async () => {
    const { site } = await siteWithSender(stack, 'private.example.test');
    const other = await createTestSite(stack, 'Other site');
    expect((await rest(stack, 'GET', '/customemail/v1/sender', { headers: viewer(site) })).status).toBe(401);
    const member = await join(stack, site);
    expect((await rest(stack, 'GET', '/customemail/v1/sender', { headers: viewer(site, member.jwt) })).status).toBe(403);
    expect((await rest(stack, 'POST', '/customemail/v1/sender/verify', { headers: viewer(site, member.jwt) })).status).toBe(403);
    const editor = await site.token([{ pageId: [], scope: 'CustomEmail', write: true }]);
    expect((await rest<SenderCheck>(stack, 'POST', '/customemail/v1/sender/verify', { headers: viewer(site, editor) })).body.status).toBe('failed');
    expect((await rest(stack, 'GET', '/customemail/v1/sender', { headers: other.admin })).status).toBe(404);
  });

  it('answers the same over GraphQL', async () => {
    const { site } = await siteWithSender(stack, 'graphql.example.test');
    const read = await graphql<{ receiptSender: { status: string; dnsRecords: { purpose: string }[] } }>(
      stack,
      /* GraphQL */ `query { receiptSender { status dnsRecords { purpose } } }`,
      {},
      site.admin,
    );
    expect(read.body.data?.receiptSender).toEqual({ status: 'pending', dnsRecords: [{ purpose: 'dkim' }, { purpose: 'spf' }] });
    const checked = await graphql<{ verifyReceiptSender: { status: string; problem: string } }>(
      stack,
      /* GraphQL */ `mutation { verifyReceiptSender { status problem } }`,
      {},
      site.admin,
    );
    expect(checked.body.data?.verifyReceiptSender).toEqual({ status: 'failed', problem: 'no DKIM or SPF record found' });
  });
});

describe('a DNS server that never answers', () => {
  let silent: Awaited<ReturnType<typeof startSilentDns>>;
  let silentStack: Stack;
  beforeAll(async () => {
    silent = await startSilentDns();
    silentStack = await startTestStack({ env: { DNS_SERVERS: silent.server, DNS_TIMEOUT_MS: '300', ...MAIL_ENV } });
  });
  afterAll(() => silent.close());

  it('fails the check with the reason, status 200, never a 500', async () => {
    const { site } = await siteWithSender(silentStack, 'timeout.example.test');
    const failed = await verifyNow(silentStack, site);
    expect(failed.status).toBe(200);
    expect(failed.body.status).toBe('failed');
    expect(failed.body.problem).toMatch(/DNS gave no answer for stagegraph\._domainkey\.timeout\.example\.test within 300 ms/);
  });

  it('makes a due check once when several instances look at once', async () => {
    const { site } = await siteWithSender(silentStack, 'once.example.test');
    const db = silentStack.database.prisma;
    const before = silent.questions();
    // Test data: the sender's next check is due now (the stack's own timer may take part too).
    await db.receiptEmail.update({ where: { siteId: site.siteId }, data: { senderNextCheckAt: new Date(Date.now() - 1000) } });
    // Three more instances of the deployment, passing at once (their timers are never started).
    const instances = [1, 2, 3].map(() => new SenderRechecks(db, silentStack.config, createLogger('silent')));
    await Promise.all(instances.map((instance) => instance.checkDue()));
    const checked = await until(
      () => db.receiptEmail.findUniqueOrThrow({ where: { siteId: site.siteId } }),
      (row) => row.senderStatus === 'failed',
      'the due check is made',
    );
    expect(checked.senderNextCheckAt?.getTime()).toBeGreaterThan(Date.now());
    // One check asks two questions (the DKIM name and the domain's SPF): more would be a second check.
    expect(silent.questions() - before).toBe(2);
  });
});

describe('checking again every SENDER_RECHECK_MS', () => {
  it('verifies a pending domain once its record appears, fails it once the record disappears, and receipts follow', async () => {
    const rechecking = await startTestStack({ env: { SMTP_URL: smtp.url, DNS_SERVERS: dns.server, SENDER_RECHECK_MS: '200', ...MAIL_ENV } });
    const { site, dkim } = await siteWithSender(rechecking, 'rechecked.example.test');
    const read = async () => expectStatus(await rest<SenderCheck>(rechecking, 'GET', '/customemail/v1/sender', { headers: site.admin }), 200);

    await publish({ [dkim.name]: [dkim.value] });
    await until(read, (reply) => reply.body.status === 'verified', 'the recheck verifies the published record');
    expect((await receiptOf(rechecking, site)).parsed.from?.value).toEqual([{ name: 'Arena Tickets', address: 'tickets@rechecked.example.test' }]);

    delete published[dkim.name];
    await dns.setRecords(published);
    const gone = await until(read, (reply) => reply.body.problem === 'no DKIM or SPF record found', 'the recheck notices the record is gone');
    expect(gone.body.status).toBe('failed');
    const mail = await receiptOf(rechecking, site);
    expect(mail.parsed.from?.value).toEqual(DEFAULT_SENDER);
    expect(mail.raw).not.toMatch(/^DKIM-Signature:/m);
  });
});
