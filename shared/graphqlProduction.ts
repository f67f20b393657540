/**
 * graphql-js in production mode for this process, whatever NODE_ENV says to the rest of it. Imported
 * first by each process's entry point (main.ts, gateway/index.ts, the subgraphs' index.ts), before
 * anything that loads graphql.
 *
 * graphql-js decides once, when its `jsutils/instanceOf` module loads, from `process.env.NODE_ENV`: in
 * development (anything but "production") every type check of execution and validation goes through
 * a wrapper that looks for schema objects of another copy of graphql (measured: 1.5 % of the CPU of a
 * join storm). Its documentation's way to production mode is NODE_ENV=production, which would also
 * change express and whatever else in the process reads NODE_ENV, and what the user set. So it is set
 * only while graphql-js loads that one module, and put back as it was (unset stays unset).
 */
import { createRequire } from 'node:module';

const { env } = process;
const previous = env.NODE_ENV;
env.NODE_ENV = 'production';
try {
  createRequire(__filename)('graphql/jsutils/instanceOf');
} finally {
  if (previous === undefined) delete env.NODE_ENV;
  else env.NODE_ENV = previous;
}
