/**
 * The supergraph a gateway serves at start is the build's kept composition with its subgraph URLs written in:
 * it must be exactly what composing the SDLs again gives, for any URLs, and the build keeps it current.
 */
import { composeSupergraph, composeSupergraphSdl, keptSupergraphSdl } from '../../gateway/compose';
import type { SubgraphName } from '../../shared/config';

it('the build kept a composition of the SDLs as they are now', () => {
  expect(keptSupergraphSdl()).toBe(composeSupergraph().supergraphSdl);
});

it.each([
  ['loopback ports', (name: SubgraphName) => `http://127.0.0.1:${4000 + name.length}/graphql`],
  ['service names', (name: SubgraphName) => `http://stagegraph-${name}:4001/graphql`],
  ['the placeholders', (name: SubgraphName) => `http://${name}.internal/graphql`],
  ['a quote and a backslash', (name: SubgraphName) => `http://${name}.example/"q\\`],
  ['non-ASCII', (name: SubgraphName) => `http://${name}.exämple/graphql`],
])('with %s, the SDL served is the SDL composed again', (_case, urlOf) => {
  expect(composeSupergraphSdl(urlOf)).toBe(composeSupergraph(urlOf).supergraphSdl);
});
