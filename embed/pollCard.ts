/**
 * A poll drawn in an overlay, from what pollDisplay.ts says the viewer sees: the question, then one line
 * per answer (its text, the words saying whose it is and whether it was right, its share and count, and
 * a bar), the total and a status line. While the viewer may answer, each line is the answer's button.
 * Elements are made once per set of answers and changed in place, so keyboard focus stays where it is
 * and bars move rather than blink while results stream in. A screen reader hears a summary, at most one
 * every {@link ANNOUNCE_INTERVAL_MS}: results change twice a second while answers arrive.
 */
import { ANNOUNCE_INTERVAL_MS, votes, type AnswerLine, type PollDisplay } from './pollDisplay';

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  return node;
}

function flag(node: HTMLElement, name: string, on: boolean): void {
  if (on) node.dataset[name] = '';
  else delete node.dataset[name];
}

/** The elements of one answer line. */
interface Row {
  item: HTMLLIElement;
  /** Present while the viewer may answer: holds `line`. */
  button: HTMLButtonElement | null;
  line: HTMLSpanElement;
  text: HTMLSpanElement;
  tag: HTMLSpanElement;
  icon: HTMLSpanElement;
  tagWords: HTMLSpanElement;
  share: HTMLSpanElement;
  count: HTMLSpanElement;
  bar: HTMLSpanElement;
}

function makeRow(id: string): Row {
  const item = element('li', 'sg-poll-result');
  item.dataset.answerId = id;
  const line = element('span', 'sg-poll-line');
  const text = element('span', 'sg-poll-text');
  const tag = element('span', 'sg-poll-tag');
  const icon = element('span', 'sg-poll-icon');
  // The words say it; the mark is for the eye only.
  icon.setAttribute('aria-hidden', 'true');
  const tagWords = element('span', 'sg-poll-tag-words');
  tag.append(icon, tagWords);
  const share = element('span', 'sg-poll-share');
  const count = element('span', 'sg-poll-count');
  const figures = element('span', 'sg-poll-figures');
  figures.append(share, count);
  const track = element('span', 'sg-poll-track');
  const bar = element('span', 'sg-poll-bar');
  track.append(bar);
  line.append(text, tag, figures, track);
  item.append(line);
  return { item, button: null, line, text, tag, icon, tagWords, share, count, bar };
}

let cards = 0;

/** The element of one poll and what changes it. */
export class PollCard {
  /** `[data-poll-id][data-state]`: hidden until there is something to show. */
  readonly element = element('div', 'sg-poll');
  private readonly question = element('p', 'sg-poll-question');
  private readonly list = element('ol', 'sg-poll-results');
  private readonly total = element('p', 'sg-poll-total');
  private readonly status = element('p', 'sg-poll-status');
  /** What a screen reader hears (visually hidden). */
  private readonly announcer = element('p', 'sg-poll-announce');
  private rows: Row[] = [];
  /** The answer IDs the rows were made for. */
  private rowsFor = '';
  private pending: string | null = null;
  private announceTimer = 0;
  private lastAnnouncedAt = Number.NEGATIVE_INFINITY;

  constructor(
    pollId: string,
    /** Called with the answer the viewer chose (a click, or Enter or Space on its button). */
    private readonly choose: (answerId: string) => void,
  ) {
    const questionId = `sg-poll-question-${++cards}`;
    this.element.dataset.pollId = pollId;
    this.element.hidden = true;
    this.element.setAttribute('role', 'group');
    this.element.setAttribute('aria-labelledby', questionId);
    // Focus lands here when the button that had it goes (the answer was taken), not at the top of the page.
    this.element.tabIndex = -1;
    // Changes inside are told by the announcer alone, not by the overlay layer's live region.
    this.element.setAttribute('aria-live', 'off');
    this.question.id = questionId;
    this.list.dataset.pollResults = '';
    this.status.dataset.pollStatus = '';
    this.announcer.dataset.pollAnnounce = '';
    this.announcer.setAttribute('aria-live', 'polite');
    this.announcer.setAttribute('aria-atomic', 'true');
    this.element.append(this.question, this.list, this.total, this.status, this.announcer);
  }

  show(display: PollDisplay): void {
    this.element.hidden = false;
    this.element.dataset.state = display.stage;
    this.question.textContent = display.question;
    const ids = JSON.stringify(display.lines.map((line) => line.id));
    if (ids !== this.rowsFor) {
      this.rowsFor = ids;
      this.rows = display.lines.map((line) => makeRow(line.id));
      this.list.replaceChildren(...this.rows.map((row) => row.item));
    }
    const hadFocus = this.list.contains(document.activeElement);
    display.lines.forEach((line, index) => this.showLine(this.rows[index], line, display));
    if (hadFocus && !this.list.contains(document.activeElement)) this.element.focus();
    this.list.dataset.total = String(display.total);
    this.total.textContent = `Total: ${votes(display.total)}`;
    this.status.textContent = display.status;
    this.status.dataset.pollStatus = display.statusKind;
    this.announce(display.announcement);
  }

  /** Stops what is scheduled: the poll is gone. */
  close(): void {
    clearTimeout(this.announceTimer);
    this.announceTimer = 0;
  }

  private showLine(row: Row, line: AnswerLine, display: PollDisplay): void {
    flag(row.item, 'mine', line.mine);
    flag(row.item, 'correct', line.correct);
    if (line.verdict) row.item.dataset.verdict = line.verdict;
    else delete row.item.dataset.verdict;
    row.text.textContent = line.text;
    row.tag.hidden = line.tag === '';
    row.icon.textContent = line.verdict === 'wrong' ? '✗' : line.correct ? '✓' : '';
    row.tagWords.textContent = line.tag;
    row.share.textContent = `${line.share}%`;
    row.share.dataset.share = String(line.share);
    row.count.textContent = votes(line.count);
    row.count.dataset.count = String(line.count);
    row.bar.style.width = `${line.share}%`;
    if (display.answerable && !row.button) {
      const button = element('button', 'sg-poll-choice');
      button.type = 'button';
      button.dataset.answerId = line.id;
      button.addEventListener('click', () => this.choose(line.id));
      button.append(row.line);
      row.item.append(button);
      row.button = button;
    } else if (!display.answerable && row.button) {
      row.item.append(row.line);
      row.button.remove();
      row.button = null;
    }
    // aria-disabled, not disabled: a disabled button drops keyboard focus.
    row.button?.setAttribute('aria-disabled', String(display.statusKind === 'sending'));
  }

  /** Reads out `text` now, or once {@link ANNOUNCE_INTERVAL_MS} has passed since the last one (the latest text then). */
  private announce(text: string): void {
    this.pending = text;
    if (this.announceTimer) return;
    const wait = this.lastAnnouncedAt + ANNOUNCE_INTERVAL_MS - performance.now();
    if (wait <= 0) {
      this.flushAnnouncement();
      return;
    }
    // A timer's delay is whole milliseconds and may end a fraction early: when it fires, the wait is asked again.
    this.announceTimer = window.setTimeout(() => {
      this.announceTimer = 0;
      if (this.pending !== null) this.announce(this.pending);
    }, Math.ceil(wait));
  }

  private flushAnnouncement(): void {
    const text = this.pending;
    this.pending = null;
    if (text === null || text === this.announcer.textContent) return;
    this.lastAnnouncedAt = performance.now();
    this.announcer.textContent = text;
  }
}
