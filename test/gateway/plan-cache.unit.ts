/**
 * Kept read plans (shared/db/planCache.ts): a read sent again reuses its compiled plan, and never its data.
 * The core against a compiler that counts its compiles, then a real database (SQLite, or PostgreSQL when
 * DATABASE_URL says so) read, written and read again.
 */
import { openDatabase, type Database } from '../../shared/db/client';
import { cacheReadPlans } from '../../shared/db/planCache';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/** A compiler of the generated module's shape, whose plans record what they were compiled from. */
function countingCompiler() {
  const compiled: string[] = [];
  class QueryCompiler {
    compile(request: string) {
      compiled.push(request);
      return { from: request };
    }
    compileBatch(request: string) {
      compiled.push(request);
      return { batch: request };
    }
  }
  return { module: { QueryCompiler }, compiled, QueryCompiler };
}

const statement = (action: string, siteId: string) =>
  JSON.stringify({ modelName: 'Overlay', action, query: { arguments: { where: { siteId } }, selection: { $scalars: true } } });

describe('the core', () => {
  it('compiles a read once per statement and per client, and every write every time', () => {
    const { module, compiled, QueryCompiler } = countingCompiler();
    cacheReadPlans(module);
    cacheReadPlans(module);
    const client = new QueryCompiler();
    const first = client.compile(statement('findMany', 'a'));
    expect(client.compile(statement('findMany', 'a'))).toBe(first);
    expect(client.compile(statement('findMany', 'b'))).toEqual({ from: statement('findMany', 'b') });
    client.compile(statement('createOne', 'a'));
    client.compile(statement('createOne', 'a'));
    new QueryCompiler().compile(statement('findMany', 'a'));
    expect(compiled).toEqual([
      statement('findMany', 'a'),
      statement('findMany', 'b'),
      statement('createOne', 'a'),
      statement('createOne', 'a'),
      statement('findMany', 'a'),
    ]);
  });

  it('keeps the plan of a batch whose statements all read, and compiles any other batch every time', () => {
    const { module, compiled, QueryCompiler } = countingCompiler();
    cacheReadPlans(module);
    const client = new QueryCompiler();
    const batch = (...actions: string[]) => `{"batch":[${actions.map((action, index) => statement(action, `s${index}`)).join(',')}],"transaction":null}`;
    const reads = batch('findUnique', 'findUnique');
    const first = client.compileBatch(reads);
    expect(client.compileBatch(reads)).toBe(first);
    client.compileBatch(batch('findUnique', 'updateOne'));
    client.compileBatch(batch('findUnique', 'updateOne'));
    expect(compiled).toEqual([reads, batch('findUnique', 'updateOne'), batch('findUnique', 'updateOne')]);
  });

  it('does not keep statements longer than 8 KB', () => {
    const { module, compiled, QueryCompiler } = countingCompiler();
    cacheReadPlans(module);
    const client = new QueryCompiler();
    const long = statement('findMany', 'x'.repeat(9000));
    client.compile(long);
    client.compile(long);
    expect(compiled).toHaveLength(2);
  });
});

describe('on a real database', () => {
  let testDatabase: TestDatabase;
  let database: Database;
  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    database = await openDatabase(testDatabase.url);
  });
  afterAll(async () => {
    await database.close();
    await testDatabase.drop();
  });

  it('answers a read sent again with the rows as they are now, each site its own', async () => {
    const prisma = database.prisma;
    const now = new Date();
    for (const id of ['site-a', 'site-b']) await prisma.site.create({ data: { id, name: id } });
    const add = (id: string, siteId: string) =>
      prisma.overlay.create({ data: { id, siteId, name: id, type: 'instance', contents: { text: id }, duration: 5, createdAt: now, updatedAt: now } });
    const names = async (siteId: string) =>
      (await prisma.overlay.findMany({ where: { siteId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map((overlay) => overlay.name);
    await add('a1', 'site-a');
    await add('b1', 'site-b');
    expect(await names('site-a')).toEqual(['a1']);
    expect(await names('site-b')).toEqual(['b1']);
    await add('a2', 'site-a');
    expect(await names('site-a')).toEqual(['a1', 'a2']);
    await prisma.overlay.delete({ where: { id: 'a1' } });
    expect(await names('site-a')).toEqual(['a2']);
    expect(await names('site-b')).toEqual(['b1']);
  });

  it('answers the findUnique calls of one tick (one batch, its plan kept) with each row as it is now', async () => {
    const prisma = database.prisma;
    const now = new Date();
    const update = (id: string, name: string) => prisma.overlay.update({ where: { id }, data: { name } });
    await prisma.site.create({ data: { id: 'site-c', name: 'site-c' } });
    for (const id of ['c1', 'c2'])
      await prisma.overlay.create({
        data: { id, siteId: 'site-c', name: id, type: 'instance', contents: { text: id }, duration: 5, createdAt: now, updatedAt: now },
      });
    const both = async () => (await Promise.all(['c1', 'c2', 'c9'].map((id) => prisma.overlay.findUnique({ where: { id } })))).map((row) => row?.name ?? null);
    expect(await both()).toEqual(['c1', 'c2', null]);
    await update('c1', 'renamed');
    expect(await both()).toEqual(['renamed', 'c2', null]);
    await prisma.overlay.delete({ where: { id: 'c2' } });
    expect(await both()).toEqual(['renamed', null, null]);
  });
});
