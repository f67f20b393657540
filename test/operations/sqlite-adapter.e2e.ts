/**
 * Prisma's SQLite adapter (shared/db/sqliteAdapter.ts) on a real file: the date text it writes is the one
 * the plain driver writes, SQLite's errors reach callers as Prisma's codes, values keep their types, and
 * interactive transactions on its one connection run one after another. The SQLite tests use a file of
 * their own whatever DATABASE_URL says.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, Prisma, type Database } from '../../shared/db/client';
import { literalText } from '../../shared/db/literalSearch';
import { SqliteConnection, sqliteDate } from '../../shared/db/sqlite';

let dir: string;
let database: Database;
/** A connection of the test's own, to read what was stored as SQLite holds it. */
let reader: SqliteConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stagegraph-adapter-'));
  database = await openDatabase(`file:${join(dir, 'adapter.db')}`);
  reader = new SqliteConnection(join(dir, 'adapter.db'), 0);
});
afterAll(async () => {
  reader.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

const stored = (id: string) =>
  reader.prepare('SELECT "createdAt", "updatedAt", typeof("createdAt") AS kind FROM "Site" WHERE id = ?').get(id) as {
    createdAt: string;
    updatedAt: string;
    kind: string;
  };

it('Prisma and the plain driver write the same date text, and each reads the other’s', async () => {
  const at = new Date('2026-03-04T05:06:07.089Z');
  await database.prisma.site.create({ data: { id: 'by-prisma', name: 'by prisma', createdAt: at } });
  const plain = database.plain;
  if (plain?.provider !== 'sqlite') throw new Error('a SQLite file has the plain SQLite driver');
  plain.connection
    .prepare(`INSERT INTO "Site" (id, name, "deviceLimit", "createdAt", "updatedAt") VALUES (?, ?, 3, ?, ?)`)
    .run('by-plain', 'by plain', sqliteDate(at), sqliteDate(at));

  expect(stored('by-prisma')).toMatchObject({ createdAt: '2026-03-04T05:06:07.089+00:00', kind: 'text' });
  expect(stored('by-plain')).toEqual({ createdAt: stored('by-prisma').createdAt, updatedAt: stored('by-prisma').createdAt, kind: 'text' });
  // The date Prisma stamps itself (@updatedAt) is in the same form.
  expect(stored('by-prisma').updatedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);

  const read = await database.prisma.site.findMany({ where: { id: { in: ['by-prisma', 'by-plain'] } }, orderBy: { id: 'asc' } });
  expect(read.map((site) => site.createdAt.toISOString())).toEqual([at.toISOString(), at.toISOString()]);
  // Dates compare as text in SQL, so a range filter finds rows from both writers.
  expect(await database.prisma.site.count({ where: { createdAt: { gte: at, lt: new Date(at.getTime() + 1) } } })).toBe(2);
});

it('a unique violation is P2002 and a missing row P2025, from SQLite’s result codes', async () => {
  await database.prisma.site.create({ data: { id: 'unique', name: 'unique' } });
  const duplicate = database.prisma.site.create({ data: { id: 'unique', name: 'again' } });
  await expect(duplicate).rejects.toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
  await expect(duplicate).rejects.toMatchObject({ code: 'P2002' });
  await expect(database.prisma.site.update({ where: { id: 'no such site' }, data: { name: 'x' } })).rejects.toMatchObject({ code: 'P2025' });
});

it('values keep their types: integers, booleans, JSON, big counts and fractions', async () => {
  await database.prisma.site.create({
    data: { id: 'typed', name: 'typed', deviceLimit: 7, trustedDocumentsOnly: true, settings: { theme: 'dark', levels: [1, 2] } },
  });
  expect(await database.prisma.site.findUnique({ where: { id: 'typed' } })).toMatchObject({
    deviceLimit: 7,
    trustedDocumentsOnly: true,
    settings: { theme: 'dark', levels: [1, 2] },
  });
  const [row] = await database.prisma.$queryRaw<
    { sites: bigint; half: number; big: bigint }[]
  >`SELECT COUNT(*) AS sites, 1.5 AS half, 9007199254740993 AS big FROM "Site"`;
  expect(row).toEqual({ sites: BigInt(await database.prisma.site.count()), half: 1.5, big: 9007199254740993n });
});

it('a LIKE pattern reads the backslash as its escape, as on PostgreSQL', async () => {
  await database.prisma.site.createMany({
    data: [
      { id: 'like-1', name: 'a_c' },
      { id: 'like-2', name: 'abc' },
    ],
  });
  const found = await database.prisma.site.findMany({ where: { name: { contains: literalText('_') } }, select: { id: true } });
  expect(found).toEqual([{ id: 'like-1' }]);
});

describe('interactive transactions', () => {
  beforeAll(async () => {
    await database.prisma.site.create({ data: { id: 'counter', name: 'counter', deviceLimit: 0 } });
  });

  const deviceLimit = async () => (await database.prisma.site.findUniqueOrThrow({ where: { id: 'counter' } })).deviceLimit;

  it('run one after another on the one connection: read-then-write increments are none of them lost', async () => {
    const increment = () =>
      database.prisma.$transaction(async (tx) => {
        const { deviceLimit: before } = await tx.site.findUniqueOrThrow({ where: { id: 'counter' } });
        // Give the others every chance to interleave between the read and the write.
        await new Promise((resolve) => setImmediate(resolve));
        await tx.site.update({ where: { id: 'counter' }, data: { deviceLimit: before + 1 } });
      });
    // A statement outside any transaction, issued meanwhile, waits its turn too.
    const [, , , , outside] = await Promise.all([increment(), increment(), increment(), increment(), database.prisma.site.count()]);
    expect(outside).toBeGreaterThan(0);
    expect(await deviceLimit()).toBe(4);
  });

  it('one that throws leaves nothing written and the connection free for the next', async () => {
    const failing = database.prisma.$transaction(async (tx) => {
      await tx.site.update({ where: { id: 'counter' }, data: { deviceLimit: 100 } });
      await tx.site.create({ data: { id: 'counter', name: 'duplicate' } });
    });
    await expect(failing).rejects.toMatchObject({ code: 'P2002' });
    expect(await deviceLimit()).toBe(4);
    await database.prisma.site.update({ where: { id: 'counter' }, data: { deviceLimit: 5 } });
    expect(await deviceLimit()).toBe(5);
  });
});
