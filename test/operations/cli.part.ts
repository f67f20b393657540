/** The CLI as a new user runs it: a real process prints working credentials as one JSON line. */
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { startStack, type Stack } from '../../stack';
import { stopAll, testConfig, TEST_SECRETS } from '../helpers/stack';
import { runCli } from '../helpers/serverProcess';
import { rest } from '../helpers/http';

let database: TestDatabase;
let stack: Stack;

beforeAll(async () => {
  database = await createTestDatabase();
  stack = await startStack(testConfig(database.url));
});
afterAll(async () => {
  await stack.close();
  await database.drop();
  await stopAll();
});

const cli = (args: string[]) => runCli(args, { ...process.env, DATABASE_URL: database.url, DATA_DIR: stack.config.dataDir, ...TEST_SECRETS });

it('site create prints {siteId, developerKey, adminAccountId} and the credentials work', async () => {
  const { stdout } = await cli(['site', 'create', '--name', 'Arena', '--admin-email', 'Owner@Example.com', '--admin-password', 'long-enough-secret']);
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  const created = JSON.parse(lines[0]);
  expect(created).toEqual({ siteId: expect.any(String), developerKey: expect.stringMatching(/^sgk_/), adminAccountId: expect.any(String) });

  const headers = { 'x-service-client-id': created.siteId, 'x-service-developer-key': created.developerKey };
  const list = await rest(stack, 'GET', '/overlay/v1', { headers });
  expect(list.status).toBe(200);
  expect(list.body).toEqual([]);

  const admin = await stack.database.prisma.account.findUniqueOrThrow({ where: { id: created.adminAccountId } });
  expect(admin.email).toBe('owner@example.com');
  expect(admin.passwordHash).toMatch(/^scrypt\$/);
  expect(admin.passwordHash).not.toContain('long-enough-secret');
  const key = await stack.database.prisma.developerKey.findFirstOrThrow({ where: { siteId: created.siteId } });
  expect(key.keyHash).not.toContain(created.developerKey);
});

it('without an admin prints only siteId and developerKey', async () => {
  const { stdout } = await cli(['site', 'create', '--name', 'Plain']);
  expect(Object.keys(JSON.parse(stdout)).sort()).toEqual(['developerKey', 'siteId']);
});

it('refuses bad arguments with exit code 2 and a usage line', async () => {
  await expect(cli(['site', 'create'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--name is required') });
  await expect(cli(['site', 'create', '--name', 'X', '--admin-email', 'a@b.co'])).rejects.toMatchObject({ code: 2 });
  await expect(cli(['nonsense'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('usage') });
});

it('superkey create prints a super API key that opens the insights', async () => {
  const { stdout } = await cli(['superkey', 'create', '--name', 'ops']);
  const { superApiKey } = JSON.parse(stdout);
  const site = JSON.parse((await cli(['site', 'create', '--name', 'Watched'])).stdout);
  const reply = await rest(stack, 'GET', `/insights/v1/concurrents?siteIds=${site.siteId}`, { headers: { 'super-api-key': superApiKey } });
  expect(reply.status).toBe(200);
  expect(reply.body).toEqual([{ siteId: site.siteId, concurrents: 0, totalViews: 0, channels: [] }]);
});

it('outbox prints the mail waiting without SMTP_URL, one JSON line each; a global account’s belongs to no site', async () => {
  const { stdout: created } = await cli([
    'site',
    'create',
    '--name',
    'Mailroom',
    '--admin-email',
    'mail-owner@example.com',
    '--admin-password',
    'long-enough-secret',
  ]);
  const { siteId } = JSON.parse(created);
  const viewer = { 'x-service-client-id': siteId };
  // A viewer's own account on the site, and the admin's global account (the CLI links it to one).
  expect(
    (await rest(stack, 'POST', '/account/v3/', { headers: viewer, body: { email: 'mail-fan@example.com', password: 'long-enough-secret', name: 'Fan' } }))
      .status,
  ).toBe(201);
  expect(
    (await rest(stack, 'POST', '/account/v3/reset', { headers: viewer, body: { email: 'mail-fan@example.com', baseUrl: 'https://fans.example.test/reset' } }))
      .status,
  ).toBe(200);
  expect(
    (
      await rest(stack, 'POST', '/account/v3/reset/global-accounts', {
        headers: viewer,
        body: { email: 'mail-owner@example.com', baseUrl: 'https://studio.example.test/reset' },
      })
    ).status,
  ).toBe(200);

  const lines = async (args: string[]) =>
    (await cli(['outbox', ...args])).stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  expect(await lines(['--to', 'mail-fan@example.com'])).toEqual([
    expect.objectContaining({
      kind: 'password-reset',
      to: 'mail-fan@example.com',
      siteId,
      text: expect.stringContaining('https://fans.example.test/reset?token='),
    }),
  ]);
  expect(await lines(['--to', 'mail-owner@example.com'])).toEqual([
    expect.objectContaining({
      kind: 'password-reset',
      to: 'mail-owner@example.com',
      siteId: null,
      text: expect.stringContaining('https://studio.example.test/reset?token='),
    }),
  ]);
  const { stdout: ofSite } = await cli(['outbox', '--site', siteId]);
  expect(ofSite.trim().split('\n')).toHaveLength(1);
  await expect(cli(['outbox', '--limit', 'many'])).rejects.toMatchObject({ code: 2 });
});
