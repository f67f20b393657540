/**
 * Storing chat messages in batches (shared/db/batches.ts), as poll answers are: the messages that
 * arrive in one turn of the event loop, or while the previous batch is written, share one transaction.
 * In it each room's counter (ChatRoom.lastSeq) is raised by the room's messages in the batch, and the
 * messages take the seqs it hands out. On PostgreSQL the counter's row lock makes concurrent batches of
 * one room (other instances) take turns, so the committed seqs of a room have no hole a later commit
 * could fill: a reader that saw seq n has seen every message before it. (panelId, seq) is unique.
 * On the plain driver (shared/db/client.ts) a batch costs one synchronous SQLite transaction, or on
 * PostgreSQL one statement per room (the counter raised and the messages inserted together).
 */
import { MicroBatcher } from '../../../shared/db/batches';
import type { Database } from '../../../shared/db/client';
import { sqliteDate, whenUnlocked } from '../../../shared/db/sqlite';

export interface ChatRow {
  id: string;
  siteId: string;
  panelId: string;
  accountId: string;
  admin: boolean;
  text: string;
  liveBroadcastId: string | null;
  streamSecond: number | null;
  createdAt: Date;
  /** A reply: the message it answers, that message's author and its first words. */
  replyToId: string | null;
  replyAccountId: string | null;
  replyExcerpt: string | null;
}

export interface StoredChatRow extends ChatRow {
  seq: number;
}

/** Rooms whose counter a batch raised, and the seq of their last message now. */
export type StoredRooms = Map<string, { siteId: string; lastSeq: number }>;

export class ChatWriter {
  private readonly batches: MicroBatcher<ChatRow, StoredChatRow>;

  constructor(database: Database, onStored: (rooms: StoredRooms) => void, maxBatch = 500) {
    const store = roomStore(database);
    this.batches = new MicroBatcher(async (rows) => {
      const { stored, rooms } = await storeBatch(database, store, rows);
      onStored(rooms);
      return stored;
    }, maxBatch);
  }

  /** Stores one message; resolves with its seq once its batch is committed. */
  write(row: ChatRow): Promise<StoredChatRow> {
    return this.batches.submit(row);
  }
}

/** Seqs handed out per room: the room's counter after the batch, minus its messages, plus each one's place. */
type StoreRooms = (siteId: string, panelId: string, rows: ChatRow[]) => Promise<number>;

const RAISE_ROOM =
  'INSERT INTO "ChatRoom" ("panelId", "siteId", "lastSeq") VALUES (?, ?, ?) ' +
  'ON CONFLICT ("panelId") DO UPDATE SET "lastSeq" = "ChatRoom"."lastSeq" + excluded."lastSeq" RETURNING "lastSeq"';
const SQLITE_INSERT =
  'INSERT INTO "ChatMessage" ("id", "siteId", "panelId", "seq", "accountId", "admin", "text", "liveBroadcastId", "streamSecond", "createdAt", "replyToId", "replyAccountId", "replyExcerpt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
// One statement: the counter raised (its row locked until commit) and the messages inserted with the seqs it gave.
const POSTGRES_ROOM =
  'WITH room AS (INSERT INTO "ChatRoom" ("panelId", "siteId", "lastSeq") VALUES ($1, $2, $3) ' +
  'ON CONFLICT ("panelId") DO UPDATE SET "lastSeq" = "ChatRoom"."lastSeq" + excluded."lastSeq" RETURNING "lastSeq") ' +
  'INSERT INTO "ChatMessage" ("id", "siteId", "panelId", "seq", "accountId", "admin", "text", "liveBroadcastId", "streamSecond", "createdAt", "replyToId", "replyAccountId", "replyExcerpt") ' +
  'SELECT m.id, $2, $1, room."lastSeq" - $3 + m.place, m.account, m.admin, m.text, m.broadcast, m.second, m.at, m.reply, m.replyaccount, m.excerpt ' +
  'FROM room, unnest($4::text[], $5::text[], $6::boolean[], $7::text[], $8::text[], $9::integer[], $10::timestamp(3)[], $11::text[], $12::text[], $13::text[]) WITH ORDINALITY ' +
  'AS m(id, account, admin, text, broadcast, second, at, reply, replyaccount, excerpt, place) RETURNING "seq"';

function roomStore(database: Database): StoreRooms | null {
  const plain = database.plain;
  if (!plain) return null;
  if (plain.provider === 'sqlite') {
    const raise = plain.connection.prepare(RAISE_ROOM);
    const insert = plain.connection.prepare(SQLITE_INSERT);
    const write = plain.connection.transaction((siteId: string, panelId: string, rows: ChatRow[]) => {
      const { lastSeq } = raise.get(panelId, siteId, rows.length) as { lastSeq: number };
      rows.forEach((row, index) => {
        const seq = lastSeq - rows.length + 1 + index;
        insert.run(
          row.id,
          siteId,
          panelId,
          seq,
          row.accountId,
          row.admin ? 1 : 0,
          row.text,
          row.liveBroadcastId,
          row.streamSecond,
          sqliteDate(row.createdAt),
          row.replyToId,
          row.replyAccountId,
          row.replyExcerpt,
        );
      });
      return lastSeq;
    });
    return async (siteId, panelId, rows) => {
      const lastSeq = await whenUnlocked(() => write.immediate(siteId, panelId, rows));
      plain.counted(rows.length + 1);
      return lastSeq;
    };
  }
  const { pool } = plain;
  return async (siteId, panelId, rows) => {
    const result = await pool.query<{ seq: number }>({
      name: 'stagegraph-insert-chat-messages',
      text: POSTGRES_ROOM,
      values: [
        panelId,
        siteId,
        rows.length,
        rows.map((row) => row.id),
        rows.map((row) => row.accountId),
        rows.map((row) => row.admin),
        rows.map((row) => row.text),
        rows.map((row) => row.liveBroadcastId),
        rows.map((row) => row.streamSecond),
        rows.map((row) => row.createdAt.toISOString()),
        rows.map((row) => row.replyToId),
        rows.map((row) => row.replyAccountId),
        rows.map((row) => row.replyExcerpt),
      ],
    });
    plain.counted(1);
    return Math.max(...result.rows.map((row) => Number(row.seq)));
  };
}

/** Without the plain driver (in-memory SQLite): the same through a Prisma transaction. */
async function storeWithPrisma(database: Database, siteId: string, panelId: string, rows: ChatRow[]): Promise<number> {
  return database.prisma.$transaction(async (tx) => {
    const [{ lastSeq }] = await tx.$queryRaw<{ lastSeq: number | bigint }[]>`
      INSERT INTO "ChatRoom" ("panelId", "siteId", "lastSeq") VALUES (${panelId}, ${siteId}, ${rows.length})
      ON CONFLICT ("panelId") DO UPDATE SET "lastSeq" = "ChatRoom"."lastSeq" + excluded."lastSeq"
      RETURNING "lastSeq"`;
    const last = Number(lastSeq);
    await tx.chatMessage.createMany({ data: rows.map((row, index) => ({ ...row, seq: last - rows.length + 1 + index })) });
    return last;
  });
}

async function storeBatch(database: Database, store: StoreRooms | null, rows: ChatRow[]): Promise<{ stored: StoredChatRow[]; rooms: StoredRooms }> {
  const byRoom = new Map<string, ChatRow[]>();
  for (const row of rows) {
    let list = byRoom.get(row.panelId);
    if (!list) byRoom.set(row.panelId, (list = []));
    list.push(row);
  }
  const seqs = new Map<ChatRow, number>();
  const rooms: StoredRooms = new Map();
  // Rooms in one order in every batch: two instances' batches never wait on each other's counters crosswise.
  for (const panelId of [...byRoom.keys()].sort()) {
    const list = byRoom.get(panelId) as ChatRow[];
    const { siteId } = list[0];
    const last = store ? await store(siteId, panelId, list) : await storeWithPrisma(database, siteId, panelId, list);
    list.forEach((row, index) => seqs.set(row, last - list.length + 1 + index));
    rooms.set(panelId, { siteId, lastSeq: last });
  }
  return { stored: rows.map((row) => ({ ...row, seq: seqs.get(row) as number })), rooms };
}
