/** Resolvers of live chat (subgraphs/content/chat/): sending and reactions (C + J), history, room and replay (C), moderation and pins (admins of Panels). */
import { chatHistory, chatReplay, chatRoomState, sendChatMessage } from './messages';
import { pinChatMessage, unpinChatMessage } from './pins';
import { sendChatReaction } from './reactions';
import { banChatAccount, chatBans, deleteChatMessage, unbanChatAccount } from './moderation';
import { approveChatMessage, chatModerationQueue, denyChatMessage } from './held';
import { chatViewerState } from './modes';
import { reportChatMessage } from './reports';
import { acknowledgeChatWarning, warnChatAccount } from './warnings';
import type { Resolvers } from '../resolvers.generated';
import type { ChatRuntime } from './runtime';

/** `chat`: the runtime's chat state (writer, limits, room settings). */
export const chatResolvers = (chat: ChatRuntime): Resolvers => ({
  Query: {
    chatMessages: (_root, args, ctx) => chatHistory(ctx, chat, args),
    chatRoom: (_root, args, ctx) => chatRoomState(ctx, chat, args),
    chatReplay: (_root, args, ctx) => chatReplay(ctx, chat, args),
    chatBans: (_root, _args, ctx) => chatBans(ctx),
    chatModerationQueue: (_root, args, ctx) => chatModerationQueue(ctx, chat, args),
    chatViewerState: (_root, args, ctx) => chatViewerState(ctx, chat, args),
  },
  Mutation: {
    sendChatMessage: (_root, args, ctx) => sendChatMessage(ctx, chat, args),
    deleteChatMessage: (_root, args, ctx) => deleteChatMessage(ctx, chat, args),
    banChatAccount: (_root, args, ctx) => banChatAccount(ctx, chat, args),
    unbanChatAccount: (_root, args, ctx) => unbanChatAccount(ctx, args),
    approveChatMessage: (_root, args, ctx) => approveChatMessage(ctx, chat, args),
    denyChatMessage: (_root, args, ctx) => denyChatMessage(ctx, chat, args),
    reportChatMessage: (_root, args, ctx) => reportChatMessage(ctx, chat, args),
    warnChatAccount: (_root, args, ctx) => warnChatAccount(ctx, args),
    acknowledgeChatWarning: (_root, _args, ctx) => acknowledgeChatWarning(ctx),
    pinChatMessage: (_root, args, ctx) => pinChatMessage(ctx, chat, args),
    unpinChatMessage: (_root, args, ctx) => unpinChatMessage(ctx, chat, args),
    sendChatReaction: (_root, args, ctx) => sendChatReaction(ctx, chat, args),
  },
});
