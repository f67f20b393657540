/** The four subgraph SDLs, read from each subgraph's schema.graphql. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, type DocumentNode } from 'graphql';
import { SUBGRAPH_NAMES, type SubgraphName } from '../shared/config';

/** A subgraph's SDL as written in its schema.graphql. */
export function subgraphSdl(name: SubgraphName): string {
  return readFileSync(join(__dirname, name, 'schema.graphql'), 'utf8');
}

export function subgraphTypeDefs(name: SubgraphName): DocumentNode {
  return parse(subgraphSdl(name));
}

export function allSubgraphTypeDefs(): { name: SubgraphName; typeDefs: DocumentNode }[] {
  return SUBGRAPH_NAMES.map((name) => ({ name, typeDefs: subgraphTypeDefs(name) }));
}
