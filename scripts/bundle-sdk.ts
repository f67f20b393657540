/**
 * Bundles the browser code in embed/ (TypeScript) into the scripts stagegraph serves: embed/build/embed.js
 * (`/sdk/v1/embed.js`, with the graphql-ws client and DOMPurify inside), embed/build/chat.js (`/sdk/v1/chat.js`,
 * the chat panel), embed/build/player.js (`/sdk/v1/player.js`, the global `stagegraph.attachTimecodeOverlays`),
 * embed/build/watch.js (`/sdk/v1/watch.js`, the watch page, with hls.js inside) and embed/build/graphiql.js and graphiql.css (the IDE at `/graphiql`: GraphiQL, React and the graphql-ws
 * client). Part of `npm run generate`,
 * so build, start and test always serve bundles of the current sources; the output is git-ignored.
 */
import { buildSync, type BuildOptions } from 'esbuild';
import { join } from 'node:path';
import { projectRoot, sdkBuildDir } from '../shared/paths';

export function bundleSdk(): void {
  const common: BuildOptions = {
    bundle: true,
    minify: true,
    sourcemap: false,
    target: ['es2020'],
    platform: 'browser',
    legalComments: 'none',
    logLevel: 'warning',
  };
  buildSync({ ...common, entryPoints: [join(projectRoot, 'embed', 'overlays.ts')], outfile: join(sdkBuildDir, 'embed.js'), format: 'iife' });
  buildSync({ ...common, entryPoints: [join(projectRoot, 'embed', 'chat.ts')], outfile: join(sdkBuildDir, 'chat.js'), format: 'iife' });
  buildSync({
    ...common,
    entryPoints: [join(projectRoot, 'embed', 'player.ts')],
    outfile: join(sdkBuildDir, 'player.js'),
    format: 'iife',
    globalName: 'stagegraph',
  });
  // hls.js's light build: the page plays plain HLS (no subtitles, alternate audio or DRM), at a third less to download.
  buildSync({
    ...common,
    entryPoints: [join(projectRoot, 'embed', 'watch.ts')],
    outfile: join(sdkBuildDir, 'watch.js'),
    format: 'iife',
    alias: { 'hls.js': 'hls.js/light' },
  });
  // The IDE at /graphiql: React's production build, and GraphiQL's CSS (fonts inlined) beside it as graphiql.css.
  buildSync({
    ...common,
    entryPoints: [join(projectRoot, 'embed', 'graphiql.ts')],
    outfile: join(sdkBuildDir, 'graphiql.js'),
    format: 'iife',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
}

if (require.main === module) bundleSdk();
