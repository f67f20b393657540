/**
 * The watch page's Q&A panel (docs/api.md "Questions the audience votes up"): the room in its order — most
 * votes first, then oldest — live from `qaRoom` on the page's socket; for a signed-in viewer an ask box (the
 * room's max_length counted down, a refusal said inline), an upvote button on others' questions (pressed
 * when voted: again takes it back) and its own held questions marked "Awaiting approval"; answered and
 * highlighted questions marked in words, never by colour alone. Question text is always set as text.
 */
import { queryAs } from './panelFeeds';
import { el, textOf, type ConfiguredPanel, type PanelContent, type PanelContext } from './panelKinds';

interface Question {
  id: string;
  text: string;
  votes: number;
  status: string;
  highlighted: boolean;
  author: { name: string | null } | null;
  created: number;
  votedByMe: boolean | null;
}

const ROOM_QUERY = /* GraphQL */ `query WatchQaRoom($panelId: ID!) { qaQuestions(panelId: $panelId) { results { id text votes status highlighted author { name } created votedByMe } } }`;
const ROOM_SUBSCRIPTION = /* GraphQL */ `subscription WatchQaLive($panelId: ID!) { qaRoom(panelId: $panelId) { questions { id text votes status highlighted author { name } created } } }`;

const byRoomOrder = (a: Question, b: Question) => b.votes - a.votes || a.created - b.created || (a.id < b.id ? -1 : 1);

/** A REST call as this viewer; the answer's JSON and status (a network failure reads as a refusal). */
async function callAs(context: PanelContext, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const token = context.token();
  const headers: Record<string, string> = { 'x-service-client-id': context.siteId, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }).catch(() => null);
  if (!response) return { status: 0, body: { message: 'Could not reach the server; try again.' } };
  return { status: response.status, body: ((await response.json().catch(() => ({}))) as Record<string, unknown>) ?? {} };
}

function qaPanel(panel: ConfiguredPanel, context: PanelContext): PanelContent {
  const panelId = panel._id;
  const settings = (typeof panel.renderer.qa_type_renderer === 'object' && panel.renderer.qa_type_renderer) || {};
  const maxLength = Number((settings as Record<string, unknown>).max_length) || 300;
  const body = el('div', { class: 'sg-qa' });
  const list = el('ol', { class: 'sg-qa-list', 'aria-label': 'Questions' });
  const empty = el('p', { class: 'sg-panel-note', text: 'No questions yet.' });
  // The room others see, the viewer's own held questions, and what it voted for.
  let shown: Question[] = [];
  let held: Question[] = [];
  const voted = new Set<string>();
  // Questions the viewer asked on this page: no vote button of its own.
  const mine = new Set<string>();
  let stop: (() => void) | null = null;

  const draw = () => {
    const signedIn = context.token() !== null;
    const questions = [...held.filter((question) => !shown.some((other) => other.id === question.id)), ...[...shown].sort(byRoomOrder)];
    empty.hidden = questions.length > 0;
    list.replaceChildren(...questions.map((question) => item(question, signedIn)));
  };

  const item = (question: Question, signedIn: boolean): HTMLElement => {
    const marks = el('span', { class: 'sg-qa-marks' });
    if (question.status === 'held') marks.append(el('span', { class: 'sg-qa-mark', 'data-mark': 'held', text: 'Awaiting approval' }));
    if (question.status === 'answered') marks.append(el('span', { class: 'sg-qa-mark', 'data-mark': 'answered', text: 'Answered' }));
    if (question.highlighted) marks.append(el('span', { class: 'sg-qa-mark', 'data-mark': 'highlighted', text: 'Highlighted' }));
    const votes = el('span', {
      class: 'sg-qa-votes',
      'data-votes': String(question.votes),
      text: `${question.votes} ${question.votes === 1 ? 'vote' : 'votes'}`,
    });
    const row = el(
      'li',
      { class: 'sg-qa-question', 'data-question-id': question.id, 'data-status': question.status },
      el('p', { class: 'sg-qa-text', text: question.text }),
      el('span', { class: 'sg-qa-author', text: question.author?.name ? `asked by ${question.author.name}` : 'asked anonymously' }),
      marks,
      votes,
    );
    if (question.highlighted) row.dataset.highlighted = '';
    if (signedIn && question.status !== 'held' && !mine.has(question.id)) {
      const pressed = voted.has(question.id);
      const word = pressed ? 'Voted' : 'Vote';
      // The name starts with the words shown (WCAG's label in name); the arrow is decoration, the state is aria-pressed.
      const button = el(
        'button',
        { type: 'button', class: 'sg-qa-vote', 'data-vote': question.id, 'aria-pressed': String(pressed), 'aria-label': `${word}: ${question.text}` },
        el('span', { 'aria-hidden': 'true', text: '▲ ' }),
        el('span', { text: word }),
      );
      button.addEventListener('click', () => void toggleVote(question.id));
      row.append(button);
    }
    return row;
  };

  const status = el('p', { class: 'sg-qa-status', role: 'status', 'aria-live': 'polite' });

  async function toggleVote(questionId: string): Promise<void> {
    const undo = voted.has(questionId);
    const reply = await callAs(context, undo ? 'DELETE' : 'POST', `/qa/v1/${panelId}/questions/${questionId}/vote`);
    if (reply.status === 200 || (reply.status === 409 && !undo)) {
      if (undo) voted.delete(questionId);
      else voted.add(questionId);
      const votes = typeof reply.body.votes === 'number' ? reply.body.votes : null;
      shown = shown.map((question) => (question.id === questionId && votes !== null ? { ...question, votes } : question));
      status.textContent = undo ? 'Vote taken back.' : 'Vote counted.';
    } else status.textContent = textOf(reply.body.message) || 'The vote was not counted.';
    draw();
    list.querySelector<HTMLButtonElement>(`button[data-vote="${questionId}"]`)?.focus();
  }

  const form = el('form', { class: 'sg-qa-ask' });
  const input = el('textarea', { id: `sg-qa-input-${panelId}`, name: 'text', rows: '2', maxlength: String(maxLength) });
  const counter = el('span', { class: 'sg-qa-counter', id: `sg-qa-counter-${panelId}`, text: `${maxLength} characters left` });
  input.setAttribute('aria-describedby', counter.id);
  input.addEventListener('input', () => (counter.textContent = `${maxLength - [...input.value].length} characters left`));
  const error = el('p', { class: 'sg-qa-error', role: 'alert' });
  form.append(
    el('label', { for: input.id, text: 'Your question' }),
    input,
    el('div', { class: 'sg-qa-ask-row' }, counter, el('button', { type: 'submit', text: 'Ask' })),
    error,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void (async () => {
      error.textContent = '';
      const reply = await callAs(context, 'POST', `/qa/v1/${panelId}/questions`, { text: input.value });
      if (reply.status !== 201 && reply.status !== 202) {
        error.textContent = textOf(reply.body.message) || 'The question was not sent.';
        return;
      }
      const asked = reply.body as unknown as Question;
      const own: Question = { ...asked, highlighted: false, author: null, created: Date.now(), votedByMe: false };
      if (asked.status === 'held') held = [...held, own];
      else if (!shown.some((question) => question.id === asked.id)) shown = [...shown, own];
      mine.add(asked.id);
      input.value = '';
      counter.textContent = `${maxLength} characters left`;
      status.textContent = asked.status === 'held' ? 'Sent: a moderator approves it before others see it.' : 'Question sent.';
      draw();
    })();
  });

  const load = async () => {
    stop?.();
    const data = await queryAs<{ qaQuestions: { results: Question[] } }>(context, ROOM_QUERY, { panelId });
    const results = data?.qaQuestions.results ?? [];
    held = results.filter((question) => question.status === 'held');
    for (const question of held) mine.add(question.id);
    shown = results.filter((question) => question.status !== 'held');
    voted.clear();
    for (const question of results) if (question.votedByMe) voted.add(question.id);
    draw();
    stop =
      context.client()?.subscribe<{ qaRoom: { questions: Question[] } }>(
        { query: ROOM_SUBSCRIPTION, variables: { panelId } },
        {
          next: (result) => {
            const room = result.data?.qaRoom;
            if (!room) return;
            shown = room.questions;
            // An approved question of the viewer's leaves its held list.
            held = held.filter((question) => !shown.some((other) => other.id === question.id));
            draw();
          },
          error: () => undefined,
          complete: () => undefined,
        },
      ) ?? null;
  };

  let drawnFor: string | null | undefined;
  const refresh = () => {
    const token = context.token();
    if (token === drawnFor) return;
    drawnFor = token;
    body.replaceChildren(...(token ? [form] : [signIn()]), status, empty, list);
    void load();
  };
  const signIn = () => {
    const button = el('button', { type: 'button', text: textOf(panel.renderer.login_button_text) || 'Sign in to ask' });
    button.addEventListener('click', () => context.signIn('Sign in to ask and vote'));
    return el('div', {}, el('p', { class: 'sg-panel-note', text: 'Sign in to ask a question and vote for others’.' }), button);
  };
  refresh();
  return { body, refresh, close: () => stop?.() };
}

/** The kinds this module draws. */
export const QA_KINDS = { 'q&a': qaPanel } as const;
