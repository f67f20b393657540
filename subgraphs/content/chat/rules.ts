/**
 * The rules of a chat room, read from its panel's renderer (seed 001's chat fields, and ours:
 * slow_mode_seconds), and the checks a message passes before anything is stored or shown: plain text of
 * 1–500 characters without control characters, no filtered word, no link from a non-admin where links
 * are not allowed. Every check runs in time linear in the message (no regular expression backtracks).
 */
import { DEFAULT_CHAT_REACTIONS, type ChatSystemView } from '../../../shared/contracts/chatEvents';
import { badInput } from '../../../shared/errors';
import { isRecord } from '../checks';

/** Panel kinds (renderer.panel_type or renderer.kind) that make a panel a chat room. */
const CHAT_KINDS = new Set(['chat', 'live-stream chat']);
export const MAX_CHAT_TEXT = 500;
export const MAX_SLOW_MODE_SECONDS = 120;
const MAX_REASON = 500;
const MAX_REACTIONS = 12;
const MAX_EMOJI_LENGTH = 16;

/** A filtered word or phrase: its words, and whether its first word may start / last word may end anywhere. */
interface FilterTerm {
  words: string[];
  anyStart: boolean;
  anyEnd: boolean;
}

export interface ChatSettings {
  system: ChatSystemView;
  filters: FilterTerm[];
  /**
   * The room's channels, where its messages take their stream second from: its renderer's `channel` (a
   * page ID), else the channels whose sidebar lists the panel (filled in by the runtime).
   */
  channelIds: string[];
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);
const normalize = (value: string) => value.normalize('NFKC').toLowerCase();
/** Letters, digits and combining marks make words; everything else separates them. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const wordsOf = (value: string) => normalize(value).match(WORD) ?? [];

/** Whether a panel's renderer makes it a chat room. */
export function isChatRenderer(renderer: unknown): boolean {
  if (!isRecord(renderer)) return false;
  return [renderer.panel_type, renderer.kind].some((kind) => typeof kind === 'string' && CHAT_KINDS.has(kind.trim().toLowerCase()));
}

/** `filtered_words` (comma- or newline-separated) as terms; `*` at a term's start or end is a wildcard. */
export function filterTerms(filteredWords: unknown): FilterTerm[] {
  if (typeof filteredWords !== 'string') return [];
  return filteredWords.split(/[,\n]/).flatMap((entry) => {
    const trimmed = entry.trim();
    const anyStart = trimmed.startsWith('*');
    const anyEnd = trimmed.length > 1 && trimmed.endsWith('*');
    const words = wordsOf(trimmed);
    return words.length > 0 ? [{ words, anyStart, anyEnd }] : [];
  });
}

export function chatSettingsOf(renderer: unknown): ChatSettings {
  const r = isRecord(renderer) ? renderer : {};
  const channel = text(r.channel);
  const slow =
    typeof r.slow_mode_seconds === 'number' && Number.isInteger(r.slow_mode_seconds) ? Math.min(MAX_SLOW_MODE_SECONDS, Math.max(0, r.slow_mode_seconds)) : 0;
  return {
    system: {
      name: text(r.system_name),
      image: text(r.system_image),
      welcomeMessage: text(r.system_welcome_message),
      rulesLinkUrl: text(r.rules_link_url),
      loginButtonText: text(r.login_button_text),
      // Only an explicit false refuses links: a room made before the setting existed keeps them.
      allowLinks: r.allow_non_admin_links !== false,
      slowModeSeconds: slow,
      reactions: reactionsOf(r.reactions),
    },
    filters: filterTerms(r.filtered_words),
    channelIds: channel === null ? [] : [channel],
  };
}

/**
 * renderer.reactions: the emoji viewers may react with (an array, or a comma-separated string), at most 12
 * of at most 16 characters each; the default 8 when it names none.
 */
export function reactionsOf(value: unknown): string[] {
  const entries = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  const emoji = entries.flatMap((entry) =>
    typeof entry === 'string' && entry.trim() !== '' && entry.trim().length <= MAX_EMOJI_LENGTH && !/\p{Cc}/u.test(entry) ? [entry.trim()] : [],
  );
  const distinct = [...new Set(emoji)].slice(0, MAX_REACTIONS);
  return distinct.length > 0 ? distinct : [...DEFAULT_CHAT_REACTIONS];
}

/** The message text as stored: trimmed, 1–500 characters, no control characters. */
export function checkedText(value: string): string {
  const trimmed = value.trim();
  if (/\p{Cc}/u.test(trimmed)) throw badInput('text must not contain control characters (line breaks included)', 'text');
  const length = [...trimmed].length;
  if (length < 1 || length > MAX_CHAT_TEXT) throw badInput(`text must be 1 to ${MAX_CHAT_TEXT} characters after trimming`, 'text');
  return trimmed;
}

/** A reason as stored: trimmed, 1 to 500 characters. */
export function checkedReason(value: string): string {
  const reason = value.trim();
  if (reason === '' || [...reason].length > MAX_REASON) throw badInput(`reason must be 1 to ${MAX_REASON} characters`, 'reason');
  return reason;
}

function termAt(words: string[], at: number, term: FilterTerm): boolean {
  const last = term.words.length - 1;
  for (let index = 0; index <= last; index += 1) {
    const word = words[at + index];
    const wanted = term.words[index];
    const startFree = index === 0 && term.anyStart;
    const endFree = index === last && term.anyEnd;
    const hit = startFree && endFree ? word.includes(wanted) : startFree ? word.endsWith(wanted) : endFree ? word.startsWith(wanted) : word === wanted;
    if (!hit) return false;
  }
  return true;
}

/** The first filtered word or phrase the text holds (whole words, case-insensitive after NFKC), or null. */
export function filteredWordIn(value: string, filters: readonly FilterTerm[]): string | null {
  if (filters.length === 0) return null;
  const words = wordsOf(value);
  for (const term of filters) {
    for (let at = 0; at + term.words.length <= words.length; at += 1) {
      if (termAt(words, at, term)) return term.words.join(' ');
    }
  }
  return null;
}

const TLD = /^\p{L}{2,24}$/u;
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?$/u;

/** Whether the text holds a link: http(s)://…, www.…, or a bare domain such as example.com. */
export function hasLink(value: string): boolean {
  for (const raw of normalize(value).split(/\s+/)) {
    // Punctuation around a token (quotes, brackets, a sentence's full stop) is not part of it.
    const token = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}/]+$/gu, '');
    if (token === '') continue;
    if (/^(?:https?:\/\/|www\.)/.test(token) || /(?:^|[^\p{L}\p{N}])https?:\/\//u.test(raw)) return true;
    const host = token.split(/[/?#:]/, 1)[0].replace(/^[^@]*@/, '');
    const labels = host.split('.');
    if (labels.length >= 2 && TLD.test(labels[labels.length - 1]) && labels.every((label) => LABEL.test(label))) return true;
  }
  return false;
}
