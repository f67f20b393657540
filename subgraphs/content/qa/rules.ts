/**
 * The rules of a Q&A room, read from its panel's renderer (ours: `qa_type_renderer {moderated,
 * anonymous_allowed, max_length}`, and the chat's `filtered_words` beside it), and the checks a question
 * passes before anything is stored: plain text of 1 to max_length characters without control characters,
 * no filtered word (the chat's own matcher, subgraphs/content/chat/rules.ts).
 */
import { appError, ErrorCode } from '../../../shared/errors';
import { filteredWordIn, filterTerms } from '../chat/rules';
import { isRecord } from '../checks';

export const DEFAULT_QA_MAX_LENGTH = 300;
export const MAX_QA_MAX_LENGTH = 1000;

/** The renderer fields of a Q&A panel, checked with every other renderer field (subgraphs/content/panels.ts). */
export const QA_RENDERER_SCHEMA = {
  qa_type_renderer: {
    type: ['object', 'null'],
    properties: {
      moderated: { type: ['boolean', 'null'] },
      anonymous_allowed: { type: ['boolean', 'null'] },
      max_length: { type: ['integer', 'null'], minimum: 1, maximum: MAX_QA_MAX_LENGTH },
    },
  },
} as const;

export interface QaSettings {
  /** Questions wait for a moderator (status held) before the room sees them. */
  moderated: boolean;
  /** A viewer may ask without its name shown. */
  anonymousAllowed: boolean;
  maxLength: number;
  filters: ReturnType<typeof filterTerms>;
  /** The room's channel (renderer.channel), where the highlighted question is shown; empty: found by the runtime. */
  channelIds: string[];
}

/** `panel_type` (or `kind`) spellings that make a panel a Q&A room: qa, q&a, q-and-a, questions. */
const QA_KINDS = new Set(['qa', 'qanda', 'questions']);
const kindOf = (value: unknown) => (typeof value === 'string' ? value.toLowerCase().replace(/[\s_&-]+/g, '') : '');

/** Whether a panel's renderer makes it a Q&A room. */
export function isQaRenderer(renderer: unknown): boolean {
  if (!isRecord(renderer)) return false;
  return [renderer.panel_type, renderer.kind].some((kind) => QA_KINDS.has(kindOf(kind)));
}

export function qaSettingsOf(renderer: unknown): QaSettings {
  const r = isRecord(renderer) ? renderer : {};
  const qa = isRecord(r.qa_type_renderer) ? r.qa_type_renderer : {};
  const maxLength =
    typeof qa.max_length === 'number' && Number.isInteger(qa.max_length) && qa.max_length >= 1 ? Math.min(qa.max_length, MAX_QA_MAX_LENGTH) : null;
  return {
    moderated: qa.moderated === true,
    anonymousAllowed: qa.anonymous_allowed === true,
    maxLength: maxLength ?? DEFAULT_QA_MAX_LENGTH,
    filters: filterTerms(r.filtered_words),
    channelIds: typeof r.channel === 'string' && r.channel.trim() !== '' ? [r.channel] : [],
  };
}

const refused = (rule: string, message: string, field = 'text') => appError(ErrorCode.BAD_USER_INPUT, message, { field, rule });

/** The question as stored: trimmed, 1 to max_length characters, no control characters, no filtered word. */
export function checkedQuestion(value: string, settings: QaSettings): string {
  const text = value.trim();
  if (text === '') throw refused('empty', 'text must not be empty');
  if (/\p{Cc}/u.test(text)) throw refused('control_characters', 'text must not contain control characters (line breaks included)');
  if ([...text].length > settings.maxLength) throw refused('too_long', `text must be at most ${settings.maxLength} characters (this room's max_length)`);
  const word = filteredWordIn(text, settings.filters);
  if (word !== null) throw refused('filtered_word', `text holds a word this room filters ("${word}")`);
  return text;
}

/** Whether the asker may hide its name; BAD_USER_INPUT naming `anonymous` where the room allows it not. */
export function checkedAnonymous(anonymous: boolean | null | undefined, settings: QaSettings): boolean {
  if (anonymous !== true) return false;
  if (!settings.anonymousAllowed)
    throw refused('anonymous', 'anonymous questions are not allowed in this room (qa_type_renderer.anonymous_allowed)', 'anonymous');
  return true;
}
