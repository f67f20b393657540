/** Resolvers of the overlays subgraph, one file per area, merged type by type. */
import { mergeResolvers } from '../../shared/subgraph';
import type { Resolvers } from './resolvers.generated';
import { overlayResolvers } from './resolvers/overlays';
import { ruleResolvers } from './resolvers/rules';

export const resolvers: Resolvers = mergeResolvers<Resolvers>(overlayResolvers, ruleResolvers);
