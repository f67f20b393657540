/**
 * `npm run --silent cli -- site create --name NAME [--admin-email E --admin-password P]`
 * `npm run --silent cli -- superkey create --name NAME`
 * Creates a site with its first developer key (and, when asked, an admin account with every
 * permission) and prints one JSON line: {"siteId","developerKey","adminAccountId"}. A new install has
 * no other way to get its first credentials. The developer key is shown only here; it is stored hashed.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../shared/config';
import { openDatabase } from '../shared/db/client';
import { provisionSite } from '../subgraphs/community/sites';
import { signSuperApiKey } from '../shared/auth/credentials';
import { newId } from '../shared/ids';

const USAGE = [
  'usage: cli site create --name NAME [--admin-email EMAIL --admin-password PASSWORD]',
  '       cli superkey create --name NAME',
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

async function main(argv: string[]): Promise<void> {
  const [noun, verb, ...rest] = argv;
  if (noun === 'site' && verb === 'create') return createSite(rest);
  if (noun === 'superkey' && verb === 'create') return createSuperKey(rest);
  fail(`unknown command: ${[noun, verb].filter(Boolean).join(' ') || '(none)'}`);
}

main(process.argv.slice(2)).catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
