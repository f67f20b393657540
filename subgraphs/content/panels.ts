/**
 * Panels: sidebar elements of a channel. The renderer object is what makes a panel a chat, a store, a
 * schedule, …; it is stored exactly as given so every kind round-trips, and every field the seed
 * describes is checked for its type (unknown fields are kept: renderers grow new options over time).
 */
import Ajv, { type ErrorObject } from 'ajv';
import type { Db } from '../../shared/db/client';
import type { Panel, Prisma } from '../../shared/db/generated/sqlite';
import { badInput } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { CHAT_MODERATION_SCHEMA } from './chat/moderationSchema';
import { checkIframeTag } from './iframeTag';
import { QA_RENDERER_SCHEMA } from './qa/rules';
import { found, isRecord, type JsonRecord } from './checks';
import { replaceReferences, referencesOfPanel } from './references';

const text = { type: ['string', 'null'] };
const flag = { type: ['boolean', 'null'] };
const epoch = { type: ['number', 'null'] };
const list = (items: object) => ({ type: ['array', 'null'], items });
const object = (properties: Record<string, object>) => ({ type: ['object', 'null'], properties });

const link = object({ generated_key: text, link_text: text, link_url: text, link_icon_name: text });

/** The renderer fields of seed 001 (Panel), by kind of value. */
export const RENDERER_SCHEMA = {
  type: 'object',
  required: ['panel_type'],
  properties: {
    panel_type: { type: 'string', minLength: 1, maxLength: 100 },
    panel_name: text,
    allow_non_admin_links: flag,
    behavior: object({ view: text, kind: text, pages: list({ type: 'object' }) }),
    channel: text,
    collection: object({ handle: text, label: text, value: text }),
    description: text,
    disable_on_mobile_embedded: flag,
    enable_dark_theme: flag,
    filtered_words: text,
    group_by_date: flag,
    groups: list(
      object({ id: text, group_banner_url: text, group_bio: text, group_name: text, group_links: list(link), created: epoch, last_modified: epoch }),
    ),
    help_link_url: text,
    icon_name: text,
    id: text,
    iframe_tag: text,
    image_url: text,
    login_button_text: text,
    people: list(
      object({
        id: text,
        person_bio: text,
        person_name: text,
        person_title: text,
        person_image_url: text,
        person_links: list(link),
        created: epoch,
        last_modified: epoch,
      }),
    ),
    playlist_id: text,
    questions: list(object({ array_id: text, poll_id: text })),
    quests: list(object({ array_id: text, quest_id: text })),
    rules_link_url: text,
    schedule_type_renderer: object({
      schedule_type: text,
      source_channels: list({ type: 'string' }),
      /** ours: a manual event's start_time (the seed gives only its end_time) */
      manual_events: list(
        object({ array_id: text, start_time: epoch, end_time: epoch, name: text, location: text, more_info: text, references: list({ type: 'string' }) }),
      ),
    }),
    show_completed_count: flag,
    /** ours: a chat's slow mode, one message per this many seconds per account */
    slow_mode_seconds: { type: ['integer', 'null'], minimum: 0, maximum: 120 },
    ...CHAT_MODERATION_SCHEMA,
    /** ours: a Q&A panel's settings */
    ...QA_RENDERER_SCHEMA,
    sources: { anyOf: [object({ array_id: text, source: text }), list(object({ array_id: text, source: text }))] },
    system_image: text,
    system_name: text,
    system_welcome_message: text,
    url: text,
  },
} as const;

const validateRenderer = new Ajv({ allErrors: false, strict: false }).compile(RENDERER_SCHEMA);

function describe(error: ErrorObject): { message: string; field: string } {
  const path = error.instancePath.split('/').filter(Boolean);
  if (error.keyword === 'required') path.push((error.params as { missingProperty: string }).missingProperty);
  const field = ['renderer', ...path].join('.');
  return { field, message: error.keyword === 'required' ? `${field} is required` : `${field} ${error.message ?? 'is invalid'}` };
}

export function checkRenderer(renderer: unknown): JsonRecord {
  if (!isRecord(renderer)) throw badInput('renderer must be an object', 'renderer');
  if (JSON.stringify(renderer).length > 256 * 1024) throw badInput('renderer must be at most 256 KiB of JSON', 'renderer');
  if (!validateRenderer(renderer)) {
    const { message, field } = describe((validateRenderer.errors as ErrorObject[])[0]);
    throw badInput(message, field);
  }
  // The watch page frames it: one https iframe and nothing else (subgraphs/content/iframeTag.ts).
  if (typeof renderer.iframe_tag === 'string' && renderer.iframe_tag.trim() !== '') checkIframeTag(renderer.iframe_tag);
  return renderer;
}

/**
 * A JSON merge patch (RFC 7396): objects merge key by key, null removes a key, anything else (arrays
 * included) replaces. Keys the patch does not name stay as they were.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const result: JsonRecord = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

const slugify = (value: string) =>
  value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);

/** The columns a renderer decides: type (panel_type), name (panel_name). */
export function rendererColumns(renderer: JsonRecord) {
  return { type: String(renderer.panel_type), name: typeof renderer.panel_name === 'string' ? renderer.panel_name : '' };
}

/** A new panel row: a fresh id and a slug from its name or type, unique in the site. */
export function newPanelRow(siteId: string, renderer: JsonRecord, now = new Date()) {
  const id = newId();
  const columns = rendererColumns(renderer);
  const base = slugify(columns.name) || slugify(columns.type) || 'panel';
  return { id, siteId, slug: `${base}-${id.slice(-8)}`, ...columns, renderer: renderer as Prisma.InputJsonValue, createdAt: now, updatedAt: now };
}

/** Writes a panel's outgoing references (its playlist, polls and quests), replacing the old ones. */
export function writePanelReferences(tx: Prisma.TransactionClient, panel: Panel): Promise<void> {
  const name = panel.name || panel.slug;
  return replaceReferences(tx, { siteId: panel.siteId, collection: 'panels', id: panel.id, name }, referencesOfPanel(panel.renderer));
}

export async function findPanel(db: Db, siteId: string, id: string): Promise<Panel> {
  return found(await db.panel.findFirst({ where: { id, siteId } }), `panel ${id}`);
}
