/**
 * How the chat feed reads a room: through the gateway, as the site ID alone reads it (the content subgraph
 * owns chat, community adds the authors' names), so the gateway never reads a subgraph's tables.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Identity } from '../../../shared/auth/identity';
import type { ChatRoomView } from '../../../shared/contracts/chatEvents';
import { newId } from '../../../shared/ids';

const ROOM_READ = /* GraphQL */ `
  query LiveChatRoom($panelId: ID!, $afterSeq: Int, $limit: Int) {
    chatRoom(panelId: $panelId, afterSeq: $afterSeq, limit: $limit) {
      system { name image welcomeMessage rulesLinkUrl loginButtonText allowLinks slowModeSeconds reactions pinned { messageId text author { accountId name admin } pinnedAt } }
      messages { id seq panelId text author { accountId name admin } created streamSecond held dueAt replyTo { id accountId name excerpt } }
    }
  }
`;
export const CHAT_OPERATIONS = [ROOM_READ];

export interface ChatSource {
  /** The room's system block and messages after `afterSeq` (its latest when null); throws a GraphQLError (NOT_FOUND) for no such chat. */
  read(siteId: string, panelId: string, afterSeq: number | null, limit: number): Promise<ChatRoomView>;
}

type Execute = (request: { query: string; variables: Record<string, unknown> }, identity: Identity) => Promise<ExecutionResult>;

/** Reads through the gateway as the site ID alone reads (the content subgraph owns chat, community adds names). */
export function chatSource(execute: Execute): ChatSource {
  return {
    async read(siteId, panelId, afterSeq, limit) {
      const viewer: Identity = { siteId, developerKey: false, account: null, requestId: newId() };
      const result = await execute({ query: ROOM_READ, variables: { panelId, afterSeq, limit } }, viewer);
      const [error] = result.errors ?? [];
      if (error) throw new GraphQLError(error.message, { extensions: { code: error.extensions?.code } });
      return (result.data as { chatRoom: ChatRoomView }).chatRoom;
    },
  };
}
