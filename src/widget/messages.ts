import type { VoiceErrorCode } from '../client/errors.js';

/**
 * Every sentence and label `<kb-voice-widget>` shows or announces, by key. Built in: English
 * ({@link ENGLISH}) and Japanese (`messages-ja.ts`); a page sets `el.messages` to override single
 * strings or to supply a whole table for another language. `{name}` is replaced by a value the
 * widget formats with `Intl` for the UI language (a duration, a URL, a button's label).
 */
export interface WidgetMessages {
  /** The panel's heading. */
  title: string;
  /** The status in words (`data-status` keeps the English words whatever the language). */
  'status.idle': string;
  'status.connecting': string;
  'status.connected': string;
  'status.ended': string;
  'status.failed': string;
  /** The badge shown while the call is poor, and its spoken label. */
  'quality.poor': string;
  'quality.poorLabel': string;
  'button.start': string;
  'button.end': string;
  /** The End button while the assistant finishes its sentence. */
  'button.ending': string;
  'button.mute': string;
  /** Shown when the browser blocked the answer's sound. */
  'button.sound': string;
  /** Offered when the microphone was refused: a call with typed questions. */
  'button.typeInstead': string;
  'button.send': string;
  /** Push-to-talk (`turn-taking="push-to-talk"`): the hold-to-talk button, and how to use it (shown under the controls). */
  'button.talk': string;
  'talk.hint': string;
  /** "Test my setup" (the pre-call check), and its panel while it runs (its results are in check-panel.ts). */
  'button.check': string;
  'check.running': string;
  /** In place of the hint after a hold the service did not hear (the session's `talk` event, `heard: false`). */
  'talk.notHeard': string;
  /** The cue to speak once the call is connected (before the first question). */
  listening: string;
  /** The level meter's label, the same while muted, and while the caller holds talk. */
  'level.microphone': string;
  'level.microphoneMuted': string;
  'level.talking': string;
  /** The meter's spoken value when the level cannot be measured. */
  'level.notMeasured': string;
  'devices.microphone': string;
  'devices.speaker': string;
  /** A device the browser gives no name; `{n}` its position. */
  'devices.unnamed': string;
  'captions.label': string;
  'captions.empty': string;
  /** Who said a caption. */
  'captions.you': string;
  'captions.assistant': string;
  /** `{time}`: how long the last answer took to start (e.g. "840 ms", "1.2 s"). */
  latency: string;
  'input.label': string;
  'input.placeholder': string;
  /** The visualizer's label and the names of its two voices. */
  'visualizer.label': string;
  'visualizer.caller': string;
  'visualizer.assistant': string;
  /** Under each answer (`sources="off"` hides them): the Sources toggle (`{n}` how many), a PDF source's page and passage. */
  'sources.toggle': string;
  'sources.page': string;
  'sources.passage': string;
  'sources.noPassage': string;
  /** The rating of an answer: the group's name, thumbs up and down, the optional feedback box, thanks. */
  'rate.label': string;
  'rate.up': string;
  'rate.down': string;
  'rate.feedback': string;
  'rate.thanks': string;
  /** Busy, with the wait the service gave: `{duration}` (e.g. "5 seconds"). */
  'error.rate_limited.wait': string;
  /** A typed question the service cannot take (empty or too long). */
  'error.validation': string;
  /** Anything else that went wrong. */
  'error.unknown': string;
  /** Only the page's author can fix these two: the attributes. `{url}`: the relay-url as written. */
  'error.no_ai_id': string;
  'error.bad_relay_url': string;
  /** `{value}`: the turn-taking attribute as written. */
  'error.bad_turn_taking': string;
}

/** A key per error code of the session (`error.microphone_denied`, ...); `{button}` names the Enable sound button. */
export type ErrorMessages = { [Code in VoiceErrorCode as `error.${Code}`]: string };

/** The complete table: labels and one sentence per error. */
export type WidgetMessageTable = WidgetMessages & ErrorMessages;

/** The widget's English. */
export const ENGLISH: WidgetMessageTable = {
  title: 'Voice assistant',
  'status.idle': 'idle',
  listening: 'Listening: go ahead and ask your question.',
  'status.connecting': 'connecting',
  'status.connected': 'connected',
  'status.ended': 'ended',
  'status.failed': 'failed',
  'quality.poor': 'Poor connection',
  'quality.poorLabel': 'Call quality: poor. Your voice or the answer may break up.',
  'button.start': 'Start call',
  'button.end': 'End call',
  'button.ending': 'Ending\u2026',
  'button.mute': 'Mute',
  'button.sound': 'Enable sound',
  'button.typeInstead': 'Continue by typing',
  'button.send': 'Send',
  'button.talk': 'Hold to talk',
  'button.check': 'Test my setup',
  'check.running': 'Testing your microphone, network and the voice service\u2026',
  'talk.hint': 'Hold the button (or Space) while you speak; release it when you are done.',
  'talk.notHeard': 'I didn\u2019t catch that. Hold the button while you speak, then release it.',
  'level.microphone': 'Microphone',
  'level.microphoneMuted': 'Microphone muted',
  'level.talking': 'Listening to you',
  'level.notMeasured': 'not measured',
  'devices.microphone': 'Microphone',
  'devices.speaker': 'Speaker',
  'devices.unnamed': 'Device {n}',
  'captions.label': 'Captions',
  'captions.empty': 'Captions of the call appear here.',
  'captions.you': 'You:',
  'captions.assistant': 'Assistant:',
  latency: 'Last answer started {time} after the question.',
  'input.label': 'Type a question',
  'input.placeholder': 'Type a question\u2026',
  'visualizer.label': 'Voices',
  'visualizer.caller': 'You',
  'visualizer.assistant': 'Assistant',
  'sources.toggle': 'Sources ({n})',
  'sources.page': 'Page {page}',
  'sources.passage': 'Show passage',
  'sources.noPassage': 'The passage could not be shown.',
  'rate.label': 'Rate this answer',
  'rate.up': 'Helpful',
  'rate.down': 'Not helpful',
  'rate.feedback': 'What was wrong? (optional)',
  'rate.thanks': 'Thanks for your feedback.',
  'error.microphone_denied': 'Microphone access was refused. Allow the microphone for this site (the icon in the address bar), then start the call again.',
  'error.microphone_unavailable': 'No microphone could be opened. Connect one, or close other apps that use it, then start the call again.',
  'error.webrtc_unsupported': 'This browser cannot make voice calls (no WebRTC). Open this page in a current Chrome, Edge, Firefox or Safari.',
  'error.unauthorized': 'You are not allowed to use this assistant right now. Sign in to the site, then start the call again.',
  'error.not_found': 'This assistant was not found. The page\u2019s author should check the widget\u2019s ai-id attribute.',
  'error.rate_limited': 'The assistant is busy. Wait a moment, then start the call again.',
  'error.rate_limited.wait': 'The assistant is busy. Wait {duration}, then start the call again.',
  'error.service_unavailable': 'The voice service is unavailable right now. Try again in a minute.',
  'error.signaling_failed': 'The call could not be set up. Try again in a minute.',
  'error.connection_failed': 'The call could not connect: your network may block calls. Try another network, then start the call again.',
  'error.connection_lost': 'The call was lost and could not be restored. Start a new call.',
  'error.session_reset': 'The call was restored, but the assistant restarted and no longer remembers the earlier part of it; the call goes on.',
  'error.device_lost': 'The microphone stopped (unplugged, switched off or taken by another app). The call goes on with the default microphone.',
  'error.device_unavailable': 'That speaker or headset cannot be used. Choose another one.',
  'error.not_supported': 'This browser cannot do that here.',
  'error.protocol_error': 'The assistant sent something unexpected; the call goes on. If it stops working, start a new call.',
  'error.server_error': 'The assistant reported a problem; the call goes on. If it stops working, start a new call.',
  'error.playback_blocked': 'Your browser blocked the assistant\u2019s sound. Press \u201c{button}\u201d to hear it.',
  'error.not_connected': 'There is no call yet: start a call first.',
  'error.session_ended': 'This call has ended: start a new call.',
  'error.no_session': 'This call has ended: start a new call.',
  'error.report_failed': 'The call\u2019s report could not be loaded. Try again later.',
  'error.unknown_turn': 'That answer is no longer known.',
  'error.no_message': 'That answer was not stored and cannot be rated.',
  'error.rating_failed': 'Your rating could not be sent. Try again.',
  'error.validation': 'That question could not be sent: it is empty or too long.',
  'error.unknown': 'Something went wrong. Start the call again; if it keeps failing, reload the page.',
  'error.no_ai_id': 'The widget has no ai-id attribute: the page\u2019s author must set it to the assistant\u2019s id.',
  'error.bad_relay_url': 'The widget\u2019s relay-url attribute ({url}) is not a URL: the page\u2019s author must fix it.',
  'error.bad_turn_taking': 'The widget\u2019s turn-taking attribute ({value}) must be auto or push-to-talk: the page\u2019s author must fix it.',
};

/**
 * The longest each short label may be, in columns (a CJK character counts 2): the widths the layout
 * keeps on one line at 360 px. The built-in tables are held to them (test/widget); an app's own
 * strings should be too. Sentences (errors, captions' placeholder, latency) wrap and have no limit.
 */
export const LABEL_COLUMNS: Partial<Record<keyof WidgetMessageTable, number>> = {
  title: 24,
  'status.idle': 12, 'status.connecting': 12, 'status.connected': 12, 'status.ended': 12, 'status.failed': 12,
  'quality.poor': 18,
  'button.start': 14, 'button.end': 14, 'button.ending': 14, 'button.mute': 14,
  'button.sound': 20, 'button.typeInstead': 20, 'button.send': 10, 'button.talk': 14, 'button.check': 20,
  'level.microphone': 20, 'level.microphoneMuted': 20, 'level.talking': 20,
  'devices.microphone': 14, 'devices.speaker': 14,
  'captions.you': 14, 'captions.assistant': 14,
  'visualizer.caller': 14, 'visualizer.assistant': 14,
};

/** Display columns of `text`: East Asian wide and full-width characters count 2. */
export function columns(text: string): number {
  let n = 0;
  for (const ch of text) n += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(ch) ? 2 : 1;
  return n;
}
