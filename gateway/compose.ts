/**
 * Supergraph composition with @apollo/composition, from the four subgraph SDLs. The build writes the
 * result to gateway/supergraph.generated.graphql (a composition error stops the build with every error
 * printed); at start the gateway composes again with the configured subgraph URLs, so what it serves
 * can never drift from the SDLs. No introspection at run time.
 */
import { composeServices } from '@apollo/composition';
import type { SubgraphName } from '../shared/config';
import { allSubgraphTypeDefs } from '../subgraphs';

export class CompositionError extends Error {}

/** `urlOf` gives each subgraph's routing URL; the default is a placeholder for the build artifact. */
export function composeSupergraphSdl(urlOf: (name: SubgraphName) => string = (name) => `http://${name}.internal/graphql`): string {
  const result = composeServices(allSubgraphTypeDefs().map(({ name, typeDefs }) => ({ name, typeDefs, url: urlOf(name) })));
  if (result.errors) {
    throw new CompositionError(`supergraph composition failed:\n${result.errors.map((error) => `- ${error.message}`).join('\n')}`);
  }
  return result.supergraphSdl;
}
