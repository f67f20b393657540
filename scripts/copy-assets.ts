/** After tsc: copies what the compiled code reads next to itself (subgraph SDLs, generated Prisma clients) into dist/. */
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../shared/paths';

const dist = join(projectRoot, 'dist');
for (const name of readdirSync(join(projectRoot, 'subgraphs'), { withFileTypes: true })) {
  if (name.isDirectory()) cpSync(join(projectRoot, 'subgraphs', name.name, 'schema.graphql'), join(dist, 'subgraphs', name.name, 'schema.graphql'));
}
cpSync(join(projectRoot, 'shared', 'db', 'generated'), join(dist, 'shared', 'db', 'generated'), { recursive: true });
