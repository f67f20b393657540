/**
 * The chat panel's moderation settings as the renderer holds them (docs/design.md "Chat that moderators can
 * run"), for the panel's JSON Schema (panels.ts) and the room's runtime (modes.ts). Imports nothing, so
 * the panel checks can use it without reaching into chat.
 */

import { isRecord } from '../checks';
import { filterTerms } from './rules';

export const CHAT_MODES = ['open', 'entitled', 'admins'] as const;
export type ChatMode = (typeof CHAT_MODES)[number];
export const MAX_DELAY_SECONDS = 30;
/** 30 days: an account older than that is no longer new to anyone. */
export const MAX_HOLD_NEW_ACCOUNTS_SECONDS = 2_592_000;

/** The renderer fields of these settings; a bad value is refused with 400 naming `renderer.<field>`. */
export const CHAT_MODERATION_SCHEMA = {
  /** ours: open (signed-in accounts), entitled (the channel's subscribers), admins (announcements only) */
  chat_mode: { type: ['string', 'null'], enum: [...CHAT_MODES, null] },
  /** ours: as filtered_words, but a match is held for a moderator instead of refused */
  hold_words: { type: ['string', 'null'] },
  /** ours: messages of accounts younger than this are held */
  hold_new_accounts_seconds: { type: ['integer', 'null'], minimum: 0, maximum: MAX_HOLD_NEW_ACCOUNTS_SECONDS },
  /** ours: viewers see other viewers' messages this much later */
  delay_seconds: { type: ['integer', 'null'], minimum: 0, maximum: MAX_DELAY_SECONDS },
} as const;

/** The moderation settings of a room's renderer (checked when the panel is written: panels.ts). */
export interface ChatModeration {
  mode: ChatMode;
  holdFilters: ReturnType<typeof filterTerms>;
  holdNewAccountsSeconds: number;
  delaySeconds: number;
}

const wholeIn = (value: unknown, max: number) => (typeof value === 'number' && Number.isInteger(value) ? Math.min(max, Math.max(0, value)) : 0);

export function chatModerationOf(renderer: unknown): ChatModeration {
  const r = isRecord(renderer) ? renderer : {};
  return {
    mode: (CHAT_MODES as readonly unknown[]).includes(r.chat_mode) ? (r.chat_mode as ChatMode) : 'open',
    holdFilters: filterTerms(r.hold_words),
    holdNewAccountsSeconds: wholeIn(r.hold_new_accounts_seconds, MAX_HOLD_NEW_ACCOUNTS_SECONDS),
    delaySeconds: wholeIn(r.delay_seconds, MAX_DELAY_SECONDS),
  };
}
