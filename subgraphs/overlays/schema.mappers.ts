/** GraphQL types of the overlays subgraph mapped to what resolvers hold. */
import type { AutomationRule, Overlay } from '../../shared/db/generated/sqlite';
import type { TimelineEntry } from '../../shared/contracts/viewerProtocol';
import { type OverlayBroadcastEvent } from '../../shared/contracts/liveEvents';

export type OverlayModel = Overlay;
export type SiteReference = { id: string };
export type OverlayBroadcastEventModel = OverlayBroadcastEvent;
export type AutomationRuleModel = AutomationRule;
export type AutomationRulePayloadModel = { id: string; get: string; message: string; rule: AutomationRule };
export type TimelineEntryModel = TimelineEntry;
