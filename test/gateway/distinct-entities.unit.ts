/**
 * The gateway's data sources send each distinct entity representation of a fetch once and hand the
 * gateway back one entity per representation it built; an answer with errors is asked again whole.
 */
import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';
import { distinctEntities } from '../../gateway/distinctEntities';

type Representation = { __typename: string; accountId: string };

/** A subgraph answering `_entities` with the account's name, recording what it was sent. */
function authorsSubgraph(failFor?: string) {
  const sent: Representation[][] = [];
  const source: GraphQLDataSource<Record<string, unknown>> = {
    async process({ request }: GraphQLDataSourceProcessOptions<Record<string, unknown>>): Promise<GatewayGraphQLResponse> {
      const representations = request.variables?.representations as Representation[];
      sent.push(representations);
      const errors = representations.flatMap((representation, index) =>
        representation.accountId === failFor ? [{ message: 'no such account', path: ['_entities', index, 'name'] }] : [],
      );
      return {
        data: {
          _entities: representations.map((representation) => ({ name: representation.accountId === failFor ? null : `Name of ${representation.accountId}` })),
        },
        ...(errors.length ? { errors } : {}),
      };
    },
  };
  return { source, sent };
}

const author = (accountId: string): Representation => ({ __typename: 'ChatAuthor', accountId });
const fetchOf = (representations: Representation[]) =>
  ({
    request: { query: 'query($representations:[_Any!]!){_entities(representations:$representations){...on ChatAuthor{name}}}', variables: { representations } },
    context: {},
    kind: 'incoming operation',
  }) as unknown as GraphQLDataSourceProcessOptions<Record<string, unknown>>;

it('sends each distinct representation once and answers one entity per representation, as copies', async () => {
  const { source, sent } = authorsSubgraph();
  const representations = ['a', 'b', 'a', 'a', 'c', 'b'].map(author);
  const response = await distinctEntities(source).process(fetchOf(representations));
  expect(sent).toEqual([['a', 'b', 'c'].map(author)]);
  const entities = (response.data as { _entities: { name: string }[] })._entities;
  expect(entities).toEqual(['a', 'b', 'a', 'a', 'c', 'b'].map((id) => ({ name: `Name of ${id}` })));
  // The gateway merges later fetches into each entity on its own: no two positions share an object.
  expect(new Set(entities).size).toBe(entities.length);
});

it('leaves a fetch without duplicates, or without representations, as it is', async () => {
  const { source, sent } = authorsSubgraph();
  await distinctEntities(source).process(fetchOf(['a', 'b'].map(author)));
  expect(sent).toEqual([['a', 'b'].map(author)]);
});

it('asks again with every representation when the answer has errors, so their paths are the gateway’s', async () => {
  const { source, sent } = authorsSubgraph('b');
  const representations = ['a', 'b', 'a', 'b'].map(author);
  const response = await distinctEntities(source).process(fetchOf(representations));
  expect(sent).toEqual([['a', 'b'].map(author), representations]);
  expect(response.errors?.map((error) => error.path)).toEqual([
    ['_entities', 1, 'name'],
    ['_entities', 3, 'name'],
  ]);
});
