/**
 * Supergraph composition with @apollo/composition, from the four subgraph SDLs. The build writes the
 * result to gateway/supergraph.generated.graphql (a composition error stops the build with every error
 * printed); at start the gateway composes again with the configured subgraph URLs, so what it serves
 * can never drift from the SDLs. No introspection at run time.
 */
import { composeServices, type CompositionResult } from '@apollo/composition';
import type { GraphQLSchema } from 'graphql';
import type { SubgraphName } from '../shared/config';
import { allSubgraphTypeDefs } from '../subgraphs';

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

/** `urlOf` gives each subgraph's routing URL; the default is a placeholder for the build artifact. */
export function composeSupergraphSdl(urlOf: (name: SubgraphName) => string = placeholderUrl): string {
  return compose(urlOf).supergraphSdl;
}

/**
 * The supergraph SDL and its API schema: what clients of the gateway see (no federation machinery),
 * with the subgraphs' descriptions. The build validates the REST bridge's documents and lints it.
 */
export function composeSupergraph(urlOf: (name: SubgraphName) => string = placeholderUrl): { supergraphSdl: string; apiSchema: GraphQLSchema } {
  const result = compose(urlOf);
  return { supergraphSdl: result.supergraphSdl, apiSchema: result.schema.toAPISchema().toGraphQLJSSchema() };
}
