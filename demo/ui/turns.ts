import type { Turn } from 'kb-voice';
import { renderCut, type AnswerCut } from './cuts.js';
import { clock, el, formatMs } from './dom.js';
import { describeError } from './errors.js';
import { renderWaterfall } from './waterfall.js';

/** Rating values of E6: 1 good, -1 bad, 0 cleared. */
export type Rating = 1 | -1 | 0;

/** Sends a rating (E6) and resolves when the service stored it. */
export type RateFn = (turn: Turn, rating: Rating) => Promise<void>;

const RATING_WORDS: Record<Rating, string> = { 1: 'rated good', [-1]: 'rated bad', 0: 'not rated' };

/**
 * One finished turn: who spoke, both transcripts, first-response latency, when and by whom its
 * answer was cut (`cut`, from {@link AnswerCuts}) and the sounds that only paused it, the message id
 * and a rating control. Clicking the active rating again clears it (rating 0).
 */
export function renderTurn(turn: Turn, index: number, rate: RateFn, cut: AnswerCut | null = null): HTMLLIElement {
  let current: Rating = 0;
  const status = el('span', { 'data-testid': 'rating-status', 'data-rating': '0' }, RATING_WORDS[0]);
  const up = el('button', { type: 'button', 'data-testid': 'rate-up', 'aria-pressed': 'false', title: 'Good answer' }, 'Good');
  const down = el('button', { type: 'button', 'data-testid': 'rate-down', 'aria-pressed': 'false', title: 'Bad answer' }, 'Bad');

  const choose = async (wanted: Rating) => {
    const next: Rating = current === wanted ? 0 : wanted;
    up.disabled = down.disabled = true;
    status.textContent = 'saving…';
    try {
      await rate(turn, next);
      current = next;
      status.textContent = `${RATING_WORDS[next]} (saved)`;
      status.dataset.rating = String(next);
    } catch (error) {
      console.error('rating failed', error);
      status.textContent = `Rating not saved: ${describeError(error)}`;
      status.dataset.rating = 'error';
    } finally {
      up.disabled = down.disabled = false;
      up.setAttribute('aria-pressed', String(current === 1));
      down.setAttribute('aria-pressed', String(current === -1));
    }
  };
  up.addEventListener('click', () => void choose(1));
  down.addEventListener('click', () => void choose(-1));

  const you = turn.input === 'text' ? 'You (typed)' : turn.scripted ? 'You (spoke, scripted)' : 'You (spoke)';
  return el(
    'li',
    {
      class: 'turn',
      'data-testid': 'turn',
      'data-turn-id': turn.id,
      'data-input': turn.input,
      'data-message-id': turn.messageId,
      'data-interrupted': String(turn.interrupted),
      'data-interrupted-by': turn.interruptedBy ?? 'none',
      'data-false-interruptions': turn.falseInterruptions,
      'data-scripted': String(turn.scripted === true),
      'data-agent-build-ms': turn.agentBuildMs ?? 'unknown',
    },
    el(
      'header',
      {},
      el('strong', {}, `Turn ${index + 1}`),
      el('span', {}, clock(new Date(turn.completedAt))),
      turn.firstResponseMs === null
        ? el('span', { 'data-testid': 'turn-latency', 'data-no-audio': true }, 'no answer audio')
        : el('span', {}, 'first response ', el('b', { 'data-testid': 'turn-latency', 'data-ms': turn.firstResponseMs }, formatMs(turn.firstResponseMs))),
      turn.perceivedLatencyMs === null
        ? null
        : el('span', {}, 'heard after ', el('b', { 'data-testid': 'turn-perceived', 'data-ms': turn.perceivedLatencyMs }, formatMs(turn.perceivedLatencyMs))),
      turn.agentBuildMs === null
        ? el('span', {}, '(agent build unknown)')
        : turn.agentBuildMs > 0 ? el('span', {}, `(agent build ${formatMs(turn.agentBuildMs)})`) : null,
      turn.interrupted ? el('span', { 'data-testid': 'turn-interrupted' }, 'interrupted') : null,
    ),
    renderCut(turn, cut),
    renderWaterfall(turn),
    el('p', { class: 'q' }, el('span', { class: 'who' }, `${you}: `), el('span', { 'data-testid': 'turn-question' }, turn.question)),
    el('p', { class: 'a' }, el('span', { class: 'who' }, 'Assistant: '), el('span', { 'data-testid': 'turn-answer' }, turn.answer)),
    el(
      'div',
      { class: 'rate' },
      el('span', {}, 'message ', el('code', { 'data-testid': 'turn-message-id' }, turn.messageId)),
      up,
      down,
      status,
    ),
  );
}
