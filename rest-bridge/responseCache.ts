/**
 * Answers of the routes the table marks `cache`: kept as JSON text with an entity tag, sent with ETag and
 * Cache-Control, 304 when the client has them already; `shared` answers are kept per site (the router
 * keeps them until the bus says the site changed).
 */
import { hash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { RouteSpec } from './table';

/** An answer ready to send again: its body as sent and its entity tag. */
export interface KeptAnswer {
  body: Buffer;
  length: number;
  etag: string;
}

/** The answer as JSON text, kept with its length and a strong entity tag (a hash of the text). */
export function keptAnswer(answer: unknown): KeptAnswer {
  return keptText(JSON.stringify(answer ?? null));
}

/** An answer already written as JSON text, kept as `keptAnswer` keeps one. */
export function keptText(text: string): KeptAnswer {
  const body = Buffer.from(text);
  return { body, length: body.length, etag: `"${hash('sha256', body, 'base64url').slice(0, 27)}"` };
}

/** Whether If-None-Match names the answer's tag (weak or strong; `*` names any). */
function notModified(req: Request, etag: string): boolean {
  const given = req.headers['if-none-match'];
  if (!given) return false;
  return given.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/**
 * Sends a kept answer with its ETag and the route's Cache-Control (`shared`: public for a second, varying
 * by site; otherwise private, revalidated each time): 304 when If-None-Match names the tag.
 */
export function sendCacheable(req: Request, res: Response, spec: RouteSpec, answer: KeptAnswer): void {
  res.setHeader('ETag', answer.etag);
  if (spec.cache === 'shared') {
    res.setHeader('Cache-Control', 'public, max-age=1');
    res.setHeader('Vary', 'x-service-client-id');
  } else {
    res.setHeader('Cache-Control', 'private, no-cache');
  }
  if (notModified(req, answer.etag)) {
    res.status(304).end();
    return;
  }
  // Written as kept, without express's send (which parses the content type and re-encodes the body):
  // the body is already JSON text and its length is known.
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', answer.length);
  res.statusCode = spec.status ?? 200;
  res.end(answer.body);
}

/** The site a shared answer is kept under: the x-service-client-id the executor has just verified. */
export function siteHeader(req: Request): string | undefined {
  const value = req.headers['x-service-client-id'];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.trim() || undefined;
}
