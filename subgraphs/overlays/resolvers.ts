/** Resolvers of the overlays subgraph, one file per area, merged type by type. */
import type { Resolvers } from './resolvers.generated';
import { overlayResolvers } from './resolvers/overlays';
import { ruleResolvers } from './resolvers/rules';

export const resolvers: Resolvers = {
  ...overlayResolvers,
  ...ruleResolvers,
  Query: { ...overlayResolvers.Query, ...ruleResolvers.Query },
  Mutation: { ...overlayResolvers.Mutation, ...ruleResolvers.Mutation },
};
