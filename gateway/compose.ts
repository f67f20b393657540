/**
 * Supergraph composition with @apollo/composition, from the four subgraph SDLs. The build writes the
 * result to gateway/supergraph.generated.graphql (a composition error stops the build with every error
 * printed), headed by a hash of the SDLs and of the composition library it came from. At start the gateway
 * serves that kept composition only when the hash is the one of the SDLs it runs with, and composes again
 * otherwise, so what it serves can never drift from the SDLs. No introspection at run time.
 */
import { composeServices, type CompositionResult } from '@apollo/composition';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GraphQLSchema } from 'graphql';
import { SUBGRAPH_NAMES, type SubgraphName } from '../shared/config';
import { allSubgraphTypeDefs, subgraphSdl } from '../subgraphs';

export class CompositionError extends Error {}

type Composed = Extract<CompositionResult, { errors?: undefined }>;

function compose(urlOf: (name: SubgraphName) => string): Composed {
  const result = composeServices(allSubgraphTypeDefs().map(({ name, typeDefs }) => ({ name, typeDefs, url: urlOf(name) })));
  if (result.errors) {
    throw new CompositionError(`supergraph composition failed:\n${result.errors.map((error) => `- ${error.message}`).join('\n')}`);
  }
  return result;
}

const placeholderUrl = (name: SubgraphName) => `http://${name}.internal/graphql`;

/** Where the build keeps its composition (beside this module, in the sources and in dist/). */
export const KEPT_SUPERGRAPH_PATH = join(__dirname, 'supergraph.generated.graphql');
const HEADER = '# Composed by the build from the subgraph SDLs with sha256 ';

/** What a composition is a function of: each subgraph's SDL and the composition library's version. */
function inputsHash(): string {
  const hash = createHash('sha256');
  hash.update((JSON.parse(readFileSync(require.resolve('@apollo/composition/package.json'), 'utf8')) as { version: string }).version);
  for (const name of SUBGRAPH_NAMES) hash.update(`\0${name}\0${subgraphSdl(name)}`);
  return hash.digest('hex');
}

/** The build's artifact: the supergraph SDL composed with placeholder URLs, under a first line naming what it came from. */
export function keptSupergraphFile(placeholderSdl: string): string {
  return `${HEADER}${inputsHash()}\n${placeholderSdl}`;
}

/** The kept composition when it was made from the SDLs this process runs with; null when absent or stale. */
export function keptSupergraphSdl(): string | null {
  if (!existsSync(KEPT_SUPERGRAPH_PATH)) return null;
  const text = readFileSync(KEPT_SUPERGRAPH_PATH, 'utf8');
  const newline = text.indexOf('\n');
  return text.slice(0, newline) === `${HEADER}${inputsHash()}` ? text.slice(newline + 1) : null;
}

/**
 * The supergraph SDL; `urlOf` gives each subgraph's routing URL (the default is a placeholder for the build
 * artifact). The URLs are the only part of a composition that depends on where the subgraphs run, so the kept
 * one gets them written in; a test pins that this equals composing again.
 */
export function composeSupergraphSdl(urlOf: (name: SubgraphName) => string = placeholderUrl): string {
  let sdl = keptSupergraphSdl();
  for (const name of SUBGRAPH_NAMES) {
    const placeholder = `@join__graph(name: "${name}", url: "${placeholderUrl(name)}")`;
    // Printable ASCII without quotes or backslashes is written the same by JSON and by GraphQL's printer.
    const plainUrl = /^[\x20-\x7e]*$/.test(urlOf(name)) && !/["\\]/.test(urlOf(name));
    if (sdl === null || !sdl.includes(placeholder) || !plainUrl) return compose(urlOf).supergraphSdl;
    sdl = sdl.replace(placeholder, () => `@join__graph(name: "${name}", url: ${JSON.stringify(urlOf(name))})`);
  }
  return sdl as string;
}

/**
 * The supergraph SDL and its API schema: what clients of the gateway see (no federation machinery),
 * with the subgraphs' descriptions. The build validates the REST bridge's documents and lints it.
 */
export function composeSupergraph(urlOf: (name: SubgraphName) => string = placeholderUrl): { supergraphSdl: string; apiSchema: GraphQLSchema } {
  const result = compose(urlOf);
  return { supergraphSdl: result.supergraphSdl, apiSchema: result.schema.toAPISchema().toGraphQLJSSchema() };
}
