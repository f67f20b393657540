/**
 * The browser bundles that scripts/bundle-sdk.ts builds into embed/build/ (git-ignored), served by the
 * gateway: each read once and kept with its ETag and a gzip copy (made off the event loop), answered 304
 * to a matching If-None-Match, and 503 naming the fix while `npm run generate` has not built it.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Request, Response } from 'express';
import { restErrorBody } from '../../shared/errors';
import { sdkBuildDir } from '../../shared/paths';

const gzipped = promisify(gzip);

interface Bundle {
  body: Buffer;
  gzip: Buffer;
  etag: string;
}

/** Serves `name` from embed/build/ as `type`; headers set before the call (CORS, CSP) are kept. */
export type ServeBundle = (req: Request, res: Response, name: string, type: string) => Promise<void>;

export function bundleServer(): ServeBundle {
  const bundles = new Map<string, Promise<Bundle>>();
  const load = (name: string) => {
    let loaded = bundles.get(name);
    if (!loaded) {
      loaded = readFile(join(sdkBuildDir, name)).then(async (body) => ({
        body,
        gzip: await gzipped(body),
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      }));
      // A missing bundle is read again next time (after `npm run generate`), not remembered as missing.
      loaded.catch(() => bundles.delete(name));
      bundles.set(name, loaded);
    }
    return loaded;
  };
  return async (req, res, name, type) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    let bundle: Bundle;
    try {
      bundle = await load(name);
    } catch {
      res.status(503).json(restErrorBody(`${name} is not built: run npm run generate`));
      return;
    }
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('ETag', bundle.etag);
    res.setHeader('Vary', 'Accept-Encoding');
    if (req.headers['if-none-match'] === bundle.etag) {
      res.status(304).end();
      return;
    }
    res.type(type);
    if (req.acceptsEncodings('gzip') === 'gzip') {
      res.setHeader('Content-Encoding', 'gzip');
      res.send(bundle.gzip);
    } else {
      res.send(bundle.body);
    }
  };
}
