/** The community flows leave no secret in the logs: passwords, JWTs, refresh, intent, reset and invite tokens, access codes. */
import { waitingMail } from '../../subgraphs/community/mail';
import pino from 'pino';
import { Writable } from 'node:stream';
import { REDACTED_PATHS } from '../../shared/logger';
import { createSku, join, PASSWORD, viewer } from '../helpers/community';
import { rest } from '../helpers/http';
import { createTestSite, startTestStack, stopAll } from '../helpers/stack';

afterAll(stopAll);

it('logs every request and none of the secrets handed out or presented', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const stack = await startTestStack({ logger: pino({ level: 'debug', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink) });
  const site = await createTestSite(stack);
  await createSku(stack, site, 'finals');
  const member = await join(stack, site, { email: 'logged@example.test' });
  const secrets = [PASSWORD, member.jwt, member.refreshToken];

  const refreshed = await rest(stack, 'POST', '/auth/v2/refresh', { headers: viewer(site), body: { refreshToken: member.refreshToken } });
  secrets.push(refreshed.body.jwt, refreshed.body.refreshToken);
  const intent = await rest(stack, 'POST', '/auth/v2/intent', {
    headers: viewer(site),
    body: { jwt: refreshed.body.jwt, name: 'Ana', provider: 'twitch', service: 'tv', thirdPartyAccountId: 'tw-1' },
  });
  secrets.push(intent.body.token);
  expect((await rest(stack, 'GET', `/auth/v2/intent/consume/${intent.body.token}`, { headers: viewer(site) })).status).toBe(200);

  await rest(stack, 'POST', '/account/v3/reset', { headers: viewer(site), body: { email: member.email, baseUrl: 'https://fans.example.test/reset' } });
  const [mail] = await waitingMail(stack.database.prisma, { to: member.email });
  const resetToken = new URL(/https:\/\/\S+?(?=")/.exec(mail.html ?? '')?.[0] ?? '').searchParams.get('token') as string;
  secrets.push(resetToken);
  expect(
    (await rest(stack, 'POST', '/account/v3/reset/update', { headers: viewer(site), body: { token: resetToken, password: 'the new secret password' } })).status,
  ).toBe(200);
  secrets.push('the new secret password');

  const [code] = (await rest(stack, 'POST', '/accesscode/v1/bulk', { headers: site.admin, body: { qty: 1, sku: 'finals' } })).body;
  secrets.push(code.accessCode);
  expect((await rest(stack, 'GET', `/accesscode/v1/consume/${code.accessCode}`, { headers: viewer(site, refreshed.body.jwt) })).status).toBe(200);

  const invite = await rest(stack, 'POST', '/invite/v1/magic-link/', {
    headers: site.admin,
    body: { redirectUri: 'https://fans.example.test/', siteId: site.siteId, targetSkus: ['finals'] },
  });
  secrets.push(invite.body.invite.token);
  const opened = await rest(stack, 'POST', '/invite/v1/consume', { headers: viewer(site), body: { token: invite.body.invite.token } });
  secrets.push(opened.body.session.jwt, opened.body.session.refreshToken);

  const requests = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
  expect(requests.map((entry) => entry.path)).toEqual(expect.arrayContaining(['/auth/v2/intent/consume/[redacted]', '/accesscode/v1/consume/[redacted]']));
  const all = lines.join('\n');
  for (const secret of secrets) {
    expect(secret).toEqual(expect.any(String));
    expect(all).not.toContain(secret);
  }
});
