/**
 * `npm run --silent cli -- site create --name NAME [--admin-email E --admin-password P]`
 * `npm run --silent cli -- superkey create --name NAME`
 * `npm run --silent cli -- outbox [--site SITE_ID] [--to EMAIL] [--limit N]`
 * `npm run --silent cli -- key create|list|revoke --site SITE_ID [--name NAME] [--id KEY_ID]`
 * `npm run --silent cli -- documents add --site SITE_ID --file manifest.json`
 * Creates a site with its first developer key (and, when asked, an admin account with every
 * permission) and prints one JSON line: {"siteId","developerKey","adminAccountId"}. A new install has
 * no other way to get its first credentials. The developer key is shown only here; it is stored hashed.
 * `outbox` prints the e-mail waiting without SMTP_URL (one JSON line per message, oldest first): it is
 * the operator's, since it may hold reset and login links of any account, and no site API returns it.
 * `key` manages a site's developer keys for an operator who lost every key (JSON lines, as the site
 * API answers them); a revocation is announced on the deployment's bus (REDIS_URL) like the API's.
 */
// First: compiled code kept for the next run (see the module).
import '../shared/compileCache';
import { parseArgs } from 'node:util';
import { loadConfig } from '../shared/config';
import { openDatabase } from '../shared/db/client';
import { provisionSite } from '../subgraphs/community/sites';
import { signSuperApiKey } from '../shared/auth/credentials';
import { newId } from '../shared/ids';
import { waitingMail } from '../subgraphs/community/mail';
import { createEventBus, Topics, waitForBus } from '../shared/bus';
import { createLogger } from '../shared/logger';
import { createDeveloperKey, listDeveloperKeys, revokeDeveloperKey } from '../subgraphs/community/developerKeys';
import { registerTrustedDocuments } from '../subgraphs/content/trustedDocuments';
import { readFileSync } from 'node:fs';

const USAGE = [
  'usage: cli site create --name NAME [--admin-email EMAIL --admin-password PASSWORD]',
  '       cli superkey create --name NAME',
  '       cli outbox [--site SITE_ID] [--to EMAIL] [--limit N]',
  '       cli key create --site SITE_ID --name NAME | key list --site SITE_ID | key revoke --site SITE_ID --id KEY_ID',
  '       cli documents add --site SITE_ID --file MANIFEST_JSON',
].join('\n');

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

async function createSite(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { name: { type: 'string' }, 'admin-email': { type: 'string' }, 'admin-password': { type: 'string' } },
    strict: true,
  });
  const name = values.name?.trim();
  if (!name) fail('--name is required');
  const email = values['admin-email']?.trim().toLowerCase();
  const password = values['admin-password'];
  if (Boolean(email) !== Boolean(password)) fail('--admin-email and --admin-password go together');
  if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) fail('--admin-email is not an e-mail address');
  if (password !== undefined && password.length < 8) fail('--admin-password must be at least 8 characters');

  const config = loadConfig();
  const database = await openDatabase(config.databaseUrl);
  try {
    const created = await provisionSite(database.prisma, { name, admin: email && password ? { email, password } : undefined });
    process.stdout.write(`${JSON.stringify(created)}\n`);
  } finally {
    await database.close();
  }
}

/** Prints {"superApiKey"}: a JWT for GET /insights/v1/concurrents (header super-api-key). */
async function createSuperKey(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { name: { type: 'string' } }, strict: true });
  const name = values.name?.trim();
  if (!name) fail('--name is required');
  const config = loadConfig();
  const database = await openDatabase(config.databaseUrl);
  try {
    const id = newId();
    await database.prisma.superApiKey.create({ data: { id, name, createdAt: new Date() } });
    process.stdout.write(`${JSON.stringify({ superApiKey: signSuperApiKey(id, config.jwtSecret) })}\n`);
  } finally {
    await database.close();
  }
}

/** Prints the mail waiting in the outbox, one JSON line per message: {id, siteId, kind, to, from, subject, text, html, created}. */
async function printOutbox(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { site: { type: 'string' }, to: { type: 'string' }, limit: { type: 'string' } }, strict: true });
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) fail('--limit must be a whole number from 1 to 10000');
  const config = loadConfig();
  const database = await openDatabase(config.databaseUrl);
  try {
    for (const mail of await waitingMail(database.prisma, { siteId: values.site, to: values.to, limit })) process.stdout.write(`${JSON.stringify(mail)}\n`);
  } finally {
    await database.close();
  }
}

/** A developer key as the site API lists it. */
const listed = (row: { id: string; name: string; prefix: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null }) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  created: row.createdAt.getTime(),
  lastUsedAt: row.lastUsedAt?.getTime() ?? null,
  revokedAt: row.revokedAt?.getTime() ?? null,
});

/** `key create` prints {id, name, key, prefix, created} (the key shown this once); `list` one line per key; `revoke` {success, message}. */
async function manageKeys(verb: string | undefined, args: string[]): Promise<void> {
  if (verb !== 'create' && verb !== 'list' && verb !== 'revoke') fail(`unknown command: key ${verb ?? ''}`.trim());
  const { values } = parseArgs({ args, options: { site: { type: 'string' }, name: { type: 'string' }, id: { type: 'string' } }, strict: true });
  const siteId = values.site?.trim();
  if (!siteId) fail('--site is required');
  if (verb === 'create' && !values.name?.trim()) fail('--name is required');
  if (verb === 'revoke' && !values.id?.trim()) fail('--id is required');
  const config = loadConfig();
  const database = await openDatabase(config.databaseUrl);
  const write = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
  try {
    if (!(await database.prisma.site.findUnique({ where: { id: siteId }, select: { id: true } }))) throw new Error(`site ${siteId} not found`);
    if (verb === 'create') {
      const { row, key } = await createDeveloperKey(database.prisma, siteId, values.name as string);
      write({ id: row.id, name: row.name, key, prefix: row.prefix, created: row.createdAt.getTime() });
    } else if (verb === 'list') {
      for (const row of await listDeveloperKeys(database.prisma, siteId)) write(listed(row));
    } else {
      const { row, revoked } = await revokeDeveloperKey(database.prisma, siteId, (values.id as string).trim());
      if (revoked) await announceRevocation(config, { siteId, keyId: row.id, keyHash: row.keyHash });
      write({ success: true, message: revoked ? `developer key ${row.prefix}… revoked` : `developer key ${row.prefix}… was already revoked` });
    }
  } finally {
    await database.close();
  }
}

/**
 * Registers a persisted query manifest (Apollo's format) as the site's trusted documents and prints
 * {"operations","added","ids"}; a bad entry is refused, naming it, and nothing is stored.
 */
async function addDocuments(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { site: { type: 'string' }, file: { type: 'string' } }, strict: true });
  if (!values.site) fail('--site is required');
  if (!values.file) fail('--file is required');
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(values.file, 'utf8'));
  } catch (error) {
    fail(`--file: ${(error as Error).message}`);
  }
  const config = loadConfig();
  const database = await openDatabase(config.databaseUrl);
  try {
    if (!(await database.prisma.site.findUnique({ where: { id: values.site }, select: { id: true } }))) fail(`--site: no site ${values.site}`);
    process.stdout.write(`${JSON.stringify(await registerTrustedDocuments(database.prisma, values.site, manifest))}\n`);
  } finally {
    await database.close();
  }
}

/**
 * Tells the running instances through Redis (with REDIS_URL). Without it the instance's bus is in its
 * own process: it refuses the key once its 5-second cache of it expires.
 */
async function announceRevocation(config: ReturnType<typeof loadConfig>, revoked: { siteId: string; keyId: string; keyHash: string }): Promise<void> {
  if (!config.redisUrl) return;
  const bus = createEventBus({ redisUrl: config.redisUrl, prefix: config.redisPrefix, logger: createLogger('silent'), maxLength: config.busStreamMaxLength });
  try {
    if (!(await waitForBus(bus)))
      throw new Error('the revocation is stored, but Redis (REDIS_URL) did not answer: instances refuse the key once their 5-second cache of it expires');
    await bus.publish(Topics.developerKeyRevoked, revoked);
  } finally {
    await bus.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const [noun, verb, ...rest] = argv;
  if (noun === 'site' && verb === 'create') return createSite(rest);
  if (noun === 'superkey' && verb === 'create') return createSuperKey(rest);
  if (noun === 'outbox') return printOutbox(argv.slice(1));
  if (noun === 'key') return manageKeys(verb, rest);
  if (noun === 'documents' && verb === 'add') return addDocuments(rest);
  fail(`unknown command: ${[noun, verb].filter(Boolean).join(' ') || '(none)'}`);
}

main(process.argv.slice(2)).catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
