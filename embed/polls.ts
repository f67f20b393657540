/**
 * A poll inside an overlay (docs/design.md "Viewers in the browser"): an overlay whose `cta` is `{type: 'poll',
 * data: <poll ID>}` (or whose `contents` name a `pollId`) shows the poll's live results, subscribed to
 * `pollResults(pollId)` on the embed's socket while the overlay is shown; a viewer with a token also gets
 * the answers as buttons and answers with `answerPoll` on the same connection (the socket, or SSE). What the
 * viewer then sees is pollDisplay.ts (in words) drawn by pollCard.ts. Everything the server sends is set as
 * text, never parsed as markup.
 */
import type { ExecutionResult } from 'graphql-ws';
import type { LiveClient as Client } from './liveClient';
import type { BroadcastOverlay, PollResults } from '../shared/contracts/viewerProtocol';
import { PollCard } from './pollCard';
import { pollDisplay } from './pollDisplay';

const RESULTS_FIELDS = 'pollId type question open total answers { id text count } correctAnswerId mine { answerId correct }';
const RESULTS_SUBSCRIPTION = /* GraphQL */ `subscription EmbedPollResults($pollId: ID!) { pollResults(pollId: $pollId) { ${RESULTS_FIELDS} } }`;
const RESULTS_QUERY = /* GraphQL */ `query EmbedPollResults($pollId: ID!) { pollResults(pollId: $pollId) { ${RESULTS_FIELDS} } }`;
const ANSWER_MUTATION = /* GraphQL */ `mutation EmbedAnswerPoll($pollId: ID!, $answerId: ID!, $channelId: ID) {
  answerPoll(pollId: $pollId, answerId: $answerId, channelId: $channelId) { success pollId answerId }
}`;

const POLL_ID = /^[\w-]{1,128}$/;

/** The poll an overlay carries: its poll CTA's data, else a `pollId` in its contents; null when none. */
export function pollIdOf(overlay: BroadcastOverlay): string | null {
  const fromCta = overlay.cta?.type === 'poll' ? overlay.cta.data : undefined;
  const fromContents = (overlay.contents as { pollId?: unknown } | null | undefined)?.pollId;
  const id = fromCta ?? fromContents;
  return typeof id === 'string' && POLL_ID.test(id) ? id : null;
}

/** The `extensions.code` of the first error of a result, or of what a sink's `error` received. */
function errorCode(failure: unknown): string | null {
  const errors = Array.isArray(failure) ? failure : (failure as ExecutionResult | null)?.errors;
  const code = (errors?.[0] as { extensions?: { code?: unknown } } | undefined)?.extensions?.code;
  return typeof code === 'string' ? code : errors?.length ? 'ERROR' : null;
}

/** The poll of one shown overlay: its element, kept current while connected. */
export class PollView {
  private readonly card: PollCard;
  private latest: PollResults | null = null;
  /** The viewer's answer as this page knows it (sent, or learnt from the results). */
  private mine: string | null = null;
  private sending = false;
  private failed = false;
  private client: Client | null = null;
  private signedIn = false;
  private unsubscribe: (() => void) | null = null;
  /** Bumped on each connect and on close, so callbacks of an earlier socket change nothing. */
  private generation = 0;

  constructor(
    readonly pollId: string,
    private readonly channelId: string | null,
  ) {
    this.card = new PollCard(pollId, (answerId) => void this.answer(answerId));
  }

  /** `[data-poll-id]`: the question, the answers (buttons for a viewer who may answer) and the results. */
  get element(): HTMLElement {
    return this.card.element;
  }

  /** (Re)subscribes on `client`, e.g. after a new token; with `signedIn`, the viewer may answer. */
  connect(client: Client, signedIn: boolean): void {
    this.unsubscribe?.();
    const generation = ++this.generation;
    this.client = client;
    this.signedIn = signedIn;
    // An answer in flight on the earlier socket is dropped with it; the results will say if it was stored.
    this.sending = false;
    this.failed = false;
    if (!signedIn) this.mine = null;
    this.unsubscribe = client.subscribe<{ pollResults: PollResults }>(
      { query: RESULTS_SUBSCRIPTION, variables: { pollId: this.pollId } },
      {
        next: (result) => {
          if (generation === this.generation && result.data?.pollResults) this.update(result.data.pollResults);
        },
        // An unknown poll or another site's: nothing to show.
        error: () => {
          if (generation === this.generation) this.element.hidden = true;
        },
        complete: () => undefined,
      },
    );
  }

  /** Stops listening: the overlay is gone. */
  close(): void {
    this.generation += 1;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.card.close();
  }

  private async answer(answerId: string): Promise<void> {
    const client = this.client;
    if (!client || this.sending || this.mine) return;
    const generation = this.generation;
    this.sending = true;
    this.render();
    let code: string | null;
    try {
      code = errorCode(await client.execute({ query: ANSWER_MUTATION, variables: { pollId: this.pollId, answerId, channelId: this.channelId } }));
    } catch (failure) {
      code = errorCode(failure) ?? 'ERROR';
    }
    if (generation !== this.generation) return;
    this.sending = false;
    if (code === null) this.mine = answerId;
    // The server refused the token after all: this viewer reads the results only.
    if (code === 'UNAUTHENTICATED') this.signedIn = false;
    // Already answered (another tab) or closed meanwhile: the results say which answer is the viewer's.
    this.failed = code !== null && code !== 'CONFLICT' && code !== 'UNAUTHENTICATED';
    this.element.dataset.answerError = code ?? '';
    if (code === 'CONFLICT') await this.refresh(client, generation);
    this.render();
  }

  private async refresh(client: Client, generation: number): Promise<void> {
    const reply = await client.execute<{ pollResults: PollResults }>({ query: RESULTS_QUERY, variables: { pollId: this.pollId } }).catch(() => null);
    if (generation === this.generation && reply?.data?.pollResults) this.update(reply.data.pollResults);
  }

  private update(results: PollResults): void {
    this.latest = results;
    if (results.mine) this.mine = results.mine.answerId;
    this.render();
  }

  private render(): void {
    if (this.latest) this.card.show(pollDisplay(this.latest, { signedIn: this.signedIn, mine: this.mine, sending: this.sending, failed: this.failed }));
  }
}
