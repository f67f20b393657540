/** Resolvers of live chat (subgraphs/content/chat/): sending and reactions (C + J), history, room and replay (C), moderation and pins (admins of Panels). */
import { chatHistory, chatReplay, chatRoomState, sendChatMessage } from './messages';
import { pinChatMessage, unpinChatMessage } from './pins';
import { sendChatReaction } from './reactions';
import { banChatAccount, chatBans, deleteChatMessage, unbanChatAccount } from './moderation';
import type { Resolvers } from '../resolvers.generated';

export const chatResolvers: Resolvers = {
  Query: {
    chatMessages: (_root, args, ctx) => chatHistory(ctx, args),
    chatRoom: (_root, args, ctx) => chatRoomState(ctx, args),
    chatReplay: (_root, args, ctx) => chatReplay(ctx, args),
    chatBans: (_root, _args, ctx) => chatBans(ctx),
  },
  Mutation: {
    sendChatMessage: (_root, args, ctx) => sendChatMessage(ctx, args),
    deleteChatMessage: (_root, args, ctx) => deleteChatMessage(ctx, args),
    banChatAccount: (_root, args, ctx) => banChatAccount(ctx, args),
    unbanChatAccount: (_root, args, ctx) => unbanChatAccount(ctx, args),
    pinChatMessage: (_root, args, ctx) => pinChatMessage(ctx, args),
    unpinChatMessage: (_root, args, ctx) => unpinChatMessage(ctx, args),
    sendChatReaction: (_root, args, ctx) => sendChatReaction(ctx, args),
  },
};
