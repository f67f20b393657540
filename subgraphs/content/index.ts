/** The content subgraph as its own process, on SUBGRAPH_PORT_BASE + its number, with its webhook delivery. */
import { runService } from '../../shared/service';
import { subgraphPort } from '../../shared/config';
import { listenSubgraph } from '../../shared/subgraph';
import { createContentSubgraph } from './server';
import { runWebhookDelivery } from './webhookDispatcher';
import { runQuestOutbox } from './quests/progress';

runService('content', async (deps) => {
  const service = await listenSubgraph('content', createContentSubgraph(deps.logger, deps), deps, subgraphPort(deps.config, 'content'));
  const delivery = runWebhookDelivery(deps);
  const quests = runQuestOutbox(deps);
  return { close: async () => (await delivery.close(), await quests.close(), service.close()) };
});
