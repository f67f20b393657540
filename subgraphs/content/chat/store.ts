/**
 * Storing chat messages in batches (shared/db/batches.ts), as poll answers are: the messages that
 * arrive in one turn of the event loop, or while the previous batch is written, share one transaction.
 * In it each room's counter (ChatRoom.lastSeq) is raised by the room's messages in the batch, and the
 * messages take the seqs it hands out. On PostgreSQL the counter's row lock makes concurrent batches of
 * one room (other instances) take turns, so the committed seqs of a room have no hole a later commit
 * could fill: a reader that saw seq n has seen every message before it. (panelId, seq) is unique.
 */
import { MicroBatcher } from '../../../shared/db/batches';
import type { Database } from '../../../shared/db/client';

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
}

export interface StoredChatRow extends ChatRow {
  seq: number;
}

/** Rooms whose counter a batch raised, and the seq of their last message now. */
export type StoredRooms = Map<string, { siteId: string; lastSeq: number }>;

export class ChatWriter {
  private readonly batches: MicroBatcher<ChatRow, StoredChatRow>;

  constructor(database: Database, onStored: (rooms: StoredRooms) => void, maxBatch = 500) {
    this.batches = new MicroBatcher(async (rows) => {
      const { stored, rooms } = await storeBatch(database, rows);
      onStored(rooms);
      return stored;
    }, maxBatch);
  }

  /** Stores one message; resolves with its seq once its batch is committed. */
  write(row: ChatRow): Promise<StoredChatRow> {
    return this.batches.submit(row);
  }
}

async function storeBatch(database: Database, rows: ChatRow[]): Promise<{ stored: StoredChatRow[]; rooms: StoredRooms }> {
  const byRoom = new Map<string, ChatRow[]>();
  for (const row of rows) {
    let list = byRoom.get(row.panelId);
    if (!list) byRoom.set(row.panelId, (list = []));
    list.push(row);
  }
  const seqs = new Map<ChatRow, number>();
  const rooms: StoredRooms = new Map();
  // Rooms in one order in every batch: two instances' batches never wait on each other's counters crosswise.
  const panelIds = [...byRoom.keys()].sort();
  await database.prisma.$transaction(async (tx) => {
    for (const panelId of panelIds) {
      const list = byRoom.get(panelId) as ChatRow[];
      const [{ lastSeq }] = await tx.$queryRaw<{ lastSeq: number | bigint }[]>`
        INSERT INTO "ChatRoom" ("panelId", "siteId", "lastSeq") VALUES (${panelId}, ${list[0].siteId}, ${list.length})
        ON CONFLICT ("panelId") DO UPDATE SET "lastSeq" = "ChatRoom"."lastSeq" + excluded."lastSeq"
        RETURNING "lastSeq"`;
      const last = Number(lastSeq);
      list.forEach((row, index) => seqs.set(row, last - list.length + 1 + index));
      rooms.set(panelId, { siteId: list[0].siteId, lastSeq: last });
    }
    await tx.chatMessage.createMany({ data: rows.map((row) => ({ ...row, seq: seqs.get(row) as number })) });
  });
  return { stored: rows.map((row) => ({ ...row, seq: seqs.get(row) as number })), rooms };
}
