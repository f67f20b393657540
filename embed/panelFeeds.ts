/**
 * The watch page's panels that read the site's data (docs/design.md "The whole channel in the watch page"):
 * the achievement leaderboard (top entries and the viewer's rank, read again every few seconds), multiple
 * choice (each question a poll card, live, as in an overlay: embed/polls.ts), the schedule (in the viewer's
 * time zone, the next item counting down) and quests (the viewer's progress pushed live, the claim's
 * message once done). Each reads what the site ID alone may read, or the viewer's own with their token;
 * a read that fails leaves the panel saying so, never the page blank.
 */
import { el, textOf, webUrl, type ConfiguredPanel, type PanelContent, type PanelContext } from './panelKinds';
import { PollView } from './polls';
import { timeLeft } from './watchView';

/** How often the leaderboard is read again (points come from closed polls and completed quests). */
const LEADERBOARD_REFRESH_MS = 5000;
/** The schedule's window: from a day ago to a month ahead. */
const SCHEDULE_BEFORE_MS = 86_400_000;
const SCHEDULE_AHEAD_MS = 30 * 86_400_000;

/** A REST read as this viewer (site ID, and the token when signed in); null when it fails. */
export async function readAs<T>(context: PanelContext, path: string, withToken = true): Promise<T | null> {
  const token = withToken ? context.token() : null;
  const headers: Record<string, string> = { 'x-service-client-id': context.siteId, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const response = await fetch(path, { headers }).catch(() => null);
  return response?.ok ? ((await response.json()) as T) : null;
}

/** A GraphQL query as this viewer; its data, or null on any error. */
export async function queryAs<T>(context: PanelContext, query: string, variables: Record<string, unknown>): Promise<T | null> {
  const token = context.token();
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-client-id': context.siteId, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  }).catch(() => null);
  if (!response?.ok) return null;
  const result = (await response.json()) as { data?: T; errors?: unknown[] };
  return result.errors?.length ? null : (result.data ?? null);
}

const note = (text: string) => el('p', { class: 'sg-panel-note', text });

function signInNote(panel: ConfiguredPanel, context: PanelContext, why: string): HTMLElement {
  const words = textOf(panel.renderer.login_button_text) || 'Sign in';
  const button = el('button', { type: 'button', text: words });
  button.addEventListener('click', () => context.signIn(why));
  return el('div', {}, note(why), button);
}

// ------------------------------------------------------------------ achievement leaderboard

interface LeaderboardEntry {
  rank: number;
  accountId: string;
  name: string | null;
  points: number;
}

function leaderboardPanel(panel: ConfiguredPanel, context: PanelContext): PanelContent {
  const body = el('div', { class: 'sg-board' });
  const welcome = textOf(panel.renderer.system_welcome_message);
  const board = el('ol', { 'aria-label': textOf(panel.renderer.system_name) || 'Leaderboard' });
  const mine = el('p', { class: 'sg-board-me' });
  if (welcome) body.append(note(welcome));
  body.append(board, mine);
  let timer: number | undefined;
  const read = async () => {
    const [top, me] = await Promise.all([
      readAs<{ results: LeaderboardEntry[] }>(context, '/leaderboard/v1/?limit=10&offset=0', false),
      context.token() ? readAs<LeaderboardEntry | null>(context, '/leaderboard/v1/me') : Promise.resolve(null),
    ]);
    if (top) {
      board.replaceChildren(
        ...top.results.map((entry) => {
          const item = el(
            'li',
            { 'data-account-id': entry.accountId },
            el('span', { text: `${entry.rank}. ${entry.name ?? 'Viewer'}` }),
            el('span', { text: `${entry.points} pts` }),
          );
          if (me && me.accountId === entry.accountId) item.dataset.me = '';
          return item;
        }),
      );
      if (top.results.length === 0) board.replaceChildren(el('li', { text: 'No points yet' }));
    }
    mine.textContent = me?.rank ? `Your rank: ${me.rank} (${me.points} pts)` : context.token() ? 'You have no points yet' : '';
    mine.hidden = mine.textContent === '';
  };
  const start = () => {
    clearInterval(timer);
    void read();
    timer = window.setInterval(() => void read(), LEADERBOARD_REFRESH_MS);
  };
  start();
  return { body, refresh: start, close: () => clearInterval(timer) };
}

// ------------------------------------------------------------------ multiple choice

function multipleChoicePanel(panel: ConfiguredPanel, context: PanelContext): PanelContent {
  const questions = Array.isArray(panel.renderer.questions) ? (panel.renderer.questions as { poll_id?: unknown }[]) : [];
  const ids = questions.map((question) => textOf(question.poll_id)).filter((id) => /^[\w-]{1,128}$/.test(id));
  if (ids.length === 0) throw new Error('a multiple-choice panel without questions');
  const views = ids.map((id) => new PollView(id, context.channelId()));
  const body = el('div', {}, ...views.map((view) => el('div', { class: 'sg-poll-box' }, view.element)));
  let connectedTo: unknown = null;
  let signedIn = false;
  const refresh = () => {
    const client = context.client();
    if (!client || (client === connectedTo && signedIn === (context.token() !== null))) return;
    connectedTo = client;
    signedIn = context.token() !== null;
    for (const view of views) view.connect(client, signedIn);
  };
  refresh();
  return { body, refresh, close: () => views.forEach((view) => view.close()) };
}

// ------------------------------------------------------------------ schedule

interface ScheduleEntry {
  name: string;
  startsAt: number;
  endsAt: number;
  allDay: boolean;
  location: string | null;
}

/** `at` in the viewer's own time zone (the browser's). */
const localTime = (at: number, allDay: boolean) =>
  new Intl.DateTimeFormat(undefined, allDay ? { dateStyle: 'medium' } : { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at));

function schedulePanel(panel: ConfiguredPanel, context: PanelContext): PanelContent {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const items = el('ol', { class: 'sg-schedule' });
  const body = el('div', {}, items, note(`Times in your time zone (${zone})`));
  let timer: number | undefined;
  const draw = (entries: ScheduleEntry[]) => {
    const now = Date.now();
    const next = entries.find((entry) => entry.startsAt > now) ?? null;
    items.replaceChildren(
      ...entries.map((entry) => {
        const item = el(
          'li',
          { 'data-starts-at': String(entry.startsAt) },
          el('span', { text: entry.name }),
          el('time', { datetime: new Date(entry.startsAt).toISOString(), text: localTime(entry.startsAt, entry.allDay) }),
        );
        if (entry === next) {
          item.dataset.next = '';
          const countdown = el('span', { class: 'sg-countdown' });
          const tick = () => {
            const left = entry.startsAt - Date.now();
            countdown.textContent = left > 0 ? `Starts in ${timeLeft(left)}` : 'Starting now';
          };
          tick();
          clearInterval(timer);
          timer = window.setInterval(tick, 1000);
          item.append(countdown);
        }
        return item;
      }),
    );
    if (entries.length === 0) items.replaceChildren(el('li', { text: 'Nothing scheduled' }));
  };
  const now = Date.now();
  void readAs<{ results: ScheduleEntry[] }>(
    context,
    `/schedule/v1/${encodeURIComponent(panel._id)}?from=${now - SCHEDULE_BEFORE_MS}&to=${now + SCHEDULE_AHEAD_MS}`,
    false,
  ).then((answer) => (answer ? draw(answer.results) : items.replaceChildren(el('li', { text: 'The schedule is not available' }))));
  return { body, close: () => clearInterval(timer) };
}

// ------------------------------------------------------------------ quests

interface QuestProgress {
  questId: string;
  completed: boolean;
  claimedMessage: string | null;
  actions: { arrayId: string; kind: string; value: number; valueRequired: number; done: boolean }[];
}
const PROGRESS = 'questId completed claimedMessage actions { arrayId kind value valueRequired done }';
const QUEST_QUERY = /* GraphQL */ `query WatchQuest($id: ID!) { quest(id: $id) { title description rewardDescription } questProgress(questId: $id) { ${PROGRESS} } }`;
const PROGRESS_SUBSCRIPTION = /* GraphQL */ `subscription WatchQuestProgress($id: ID) { questProgress(questId: $id) { ${PROGRESS} } }`;

/** A quest action in words. */
function actionWords(action: QuestProgress['actions'][number]): string {
  if (action.kind === 'watch:any:video') return `Watch ${Math.ceil(action.valueRequired / 60)} min`;
  if (action.kind.startsWith('answer:polls')) return action.kind.endsWith('specific') ? 'Answer the poll' : `Answer ${action.valueRequired} polls`;
  return action.kind;
}

function questCard(id: string, context: PanelContext): { element: HTMLElement; stop(): void } {
  const element = el('li', { class: 'sg-quest', 'data-quest-id': id });
  const progress = el('ul', {});
  const claim = el('p', { class: 'sg-quest-claimed', role: 'status' });
  claim.hidden = true;
  const show = (state: QuestProgress) => {
    element.toggleAttribute('data-completed', state.completed);
    progress.replaceChildren(
      ...state.actions.map((action) => {
        const item = el(
          'li',
          { class: 'sg-quest-action' },
          el('span', { text: actionWords(action) }),
          el('span', { text: action.done ? 'Done' : `${Math.floor(action.value)} / ${action.valueRequired}` }),
        );
        if (action.done) item.dataset.done = '';
        return item;
      }),
    );
    claim.hidden = !state.completed;
    claim.textContent = state.completed ? state.claimedMessage || 'Quest complete' : '';
  };
  let unsubscribe: (() => void) | null = null;
  void queryAs<{ quest: { title: string; description: string | null; rewardDescription: string | null }; questProgress: QuestProgress }>(context, QUEST_QUERY, {
    id,
  }).then((data) => {
    if (!data) {
      console.warn(`stagegraph watch: quest ${id} is not available; skipped`);
      element.hidden = true;
      return;
    }
    element.prepend(
      el('h3', { text: data.quest.title }),
      ...[data.quest.description, data.quest.rewardDescription ? `Reward: ${data.quest.rewardDescription}` : null]
        .filter(Boolean)
        .map((text) => el('p', { text: text as string })),
    );
    element.append(progress, claim);
    show(data.questProgress);
    unsubscribe =
      context
        .client()
        ?.subscribe<{ questProgress: QuestProgress }>(
          { query: PROGRESS_SUBSCRIPTION, variables: { id } },
          { next: (result) => result.data?.questProgress && show(result.data.questProgress), error: () => undefined, complete: () => undefined },
        ) ?? null;
  });
  return { element, stop: () => unsubscribe?.() };
}

function questPanel(panel: ConfiguredPanel, context: PanelContext): PanelContent {
  const ids = (Array.isArray(panel.renderer.quests) ? (panel.renderer.quests as { quest_id?: unknown }[]) : [])
    .map((quest) => textOf(quest.quest_id))
    .filter(Boolean);
  const body = el('div', {});
  let cards: { element: HTMLElement; stop(): void }[] = [];
  const draw = () => {
    cards.forEach((card) => card.stop());
    cards = [];
    if (!context.token()) {
      body.replaceChildren(signInNote(panel, context, 'Sign in to take part in quests'));
      return;
    }
    cards = ids.map((id) => questCard(id, context));
    const rules = webUrl(panel.renderer.rules_link_url);
    body.replaceChildren(
      el('ul', {}, ...cards.map((card) => card.element)),
      rules ? el('a', { href: rules, target: '_blank', rel: 'noopener noreferrer', text: 'Rules' }) : el('span'),
    );
  };
  let drawnFor: string | null | undefined;
  const refresh = () => {
    const key = `${context.token() ?? ''}`;
    if (key === drawnFor) return;
    drawnFor = key;
    draw();
  };
  refresh();
  return { body, refresh, close: () => cards.forEach((card) => card.stop()) };
}

/** The kinds that read the site's data. */
export const FEED_KINDS = {
  'achievement leaderboard': leaderboardPanel,
  'multiple choice': multipleChoicePanel,
  schedule: schedulePanel,
  quest: questPanel,
} as const;
