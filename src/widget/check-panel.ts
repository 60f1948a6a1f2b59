import type { CallCheckResult, CheckGrade, CheckPart } from '../check/types.js';
import { fillTemplate } from './locale.js';

/**
 * The result panel of the widget's "Test my setup" (docs/widget.md): loaded with kb-voice/check
 * only when the button is pressed, so a page whose visitors never test pays nothing for it. Every
 * sentence is the widget's own, by the part's `code` (English and Japanese); a code it does not
 * know shows the check's English sentence. Built with textContent only.
 */

type Words = {
  heading: Record<Exclude<CheckGrade, 'skipped'>, string>;
  parts: Record<'microphone' | 'network' | 'service' | 'connection', string>;
  grades: Record<CheckGrade, string>;
  codes: Record<string, string>;
  /** `{rtt}`, `{jitter}`, `{loss}`, `{mos}`: the test call's figures. */
  figures: string;
};

const EN: Words = {
  heading: { good: 'Your setup is ready for calls.', warning: 'Calls should work, with the problems below.', bad: 'Calls will not work until the problems below are fixed.' },
  parts: { microphone: 'Microphone', network: 'Network', service: 'Service', connection: 'Test call' },
  grades: { good: 'OK', warning: 'Warning', bad: 'Problem', skipped: 'Not checked' },
  codes: {
    microphone_ok: 'Your microphone works.',
    microphone_denied: 'The microphone was refused. Allow it for this site in the address bar, then test again.',
    microphone_missing: 'No microphone was found. Plug one in, or close the app using it, then test again.',
    microphone_silent: 'Your microphone sends only silence. Check it is not muted, then speak while testing.',
    microphone_muted: 'Your microphone is muted by the system or the device.',
    no_microphone: 'No microphone is used: questions are typed.',
    udp_ok: 'Your network lets calls through.',
    udp_unverified: 'Your network looks fine.',
    turn_tcp: 'Your network blocks UDP; calls will go through the TURN server over TCP.',
    needs_turn_tcp: 'Your network blocks the kind of traffic calls use (UDP). Calls need a TURN server over TCP: tell the site owner.',
    turn_udp_only: 'Your network blocks UDP, and the TURN server answered only over UDP.',
    turn_unreachable: 'The TURN server did not answer: calls from stricter networks may fail.',
    ice_servers_invalid: 'The call settings of this site are wrong (ICE servers).',
    webrtc_unavailable: 'This browser cannot make calls. Use a current Chrome, Edge, Firefox or Safari.',
    service_ok: 'The voice service answers.',
    service_slow: 'The voice service answers slowly: calls may take long to start.',
    warmup_failed: 'The voice service answered, but the first answer may be slow.',
    relay_unreachable: 'The voice service cannot be reached. Check your connection, or try again later.',
    relay_refused: 'This page is not allowed to use the voice service.',
    robot_not_found: 'This assistant was not found.',
    service_unreachable: 'The voice service is down right now. Try again later.',
    rate_limited: 'The voice service is busy. Try again in a moment.',
    quality_good: 'A test call was clear.',
    quality_fair: 'A test call worked but was not clear: answers may stutter.',
    quality_poor: 'A test call worked but was poor: answers may stutter or arrive late.',
    quality_unusable: 'A test call barely got through: try another network.',
    quality_unmeasured: 'A test call connected; its quality could not be measured.',
    connect_failed: 'A test call could not connect.',
    connect_timeout: 'A test call did not connect in time.',
    service_down: 'Not tried: the voice service did not answer.',
    check_timeout: 'This took too long to check.',
    cancelled: 'The test was stopped.',
  },
  figures: 'Round trip {rtt} ms, jitter {jitter} ms, loss {loss} %, quality {mos} / 4.5.',
};

const JA: Words = {
  heading: { good: '通話の準備ができています。', warning: '通話はできますが、下の問題があります。', bad: '下の問題を直すまで通話できません。' },
  parts: { microphone: 'マイク', network: 'ネットワーク', service: 'サービス', connection: 'テスト通話' },
  grades: { good: 'OK', warning: '注意', bad: '問題あり', skipped: '未確認' },
  codes: {
    microphone_ok: 'マイクは正常です。',
    microphone_denied: 'マイクの使用が拒否されました。アドレスバーからこのサイトにマイクを許可して、もう一度テストしてください。',
    microphone_missing: 'マイクが見つかりません。マイクを接続するか、使用中のアプリを閉じてから、もう一度テストしてください。',
    microphone_silent: 'マイクから無音しか届いていません。ミュートになっていないか確認し、テスト中に話してください。',
    microphone_muted: 'マイクがシステムまたは機器でミュートされています。',
    no_microphone: 'マイクは使いません。質問は文字で入力します。',
    udp_ok: 'このネットワークで通話できます。',
    udp_unverified: 'ネットワークに問題は見つかりません。',
    turn_tcp: 'このネットワークは UDP を遮断していますが、TURN サーバー（TCP）経由で通話できます。',
    needs_turn_tcp: 'このネットワークは通話に使う通信（UDP）を遮断しています。TCP の TURN サーバーが必要です。サイトの管理者に伝えてください。',
    turn_udp_only: 'このネットワークは UDP を遮断しており、TURN サーバーは UDP でしか応答しませんでした。',
    turn_unreachable: 'TURN サーバーが応答しません。制限の厳しいネットワークからは通話できない場合があります。',
    ice_servers_invalid: 'このサイトの通話設定（ICE サーバー）に誤りがあります。',
    webrtc_unavailable: 'このブラウザーでは通話できません。最新の Chrome、Edge、Firefox、Safari をお使いください。',
    service_ok: '音声サービスは応答しています。',
    service_slow: '音声サービスの応答が遅く、通話の開始に時間がかかる場合があります。',
    warmup_failed: '音声サービスは応答しましたが、最初の回答が遅くなる場合があります。',
    relay_unreachable: '音声サービスに接続できません。接続を確認するか、しばらくしてからお試しください。',
    relay_refused: 'このページは音声サービスの利用を許可されていません。',
    robot_not_found: 'このアシスタントが見つかりません。',
    service_unreachable: '音声サービスが停止しています。しばらくしてからお試しください。',
    rate_limited: '音声サービスが混み合っています。少し待ってからお試しください。',
    quality_good: 'テスト通話はクリアでした。',
    quality_fair: 'テスト通話はできましたが、音声が途切れることがあります。',
    quality_poor: 'テスト通話はできましたが品質が低く、回答が途切れたり遅れたりすることがあります。',
    quality_unusable: 'テスト通話がほとんど届きませんでした。別のネットワークをお試しください。',
    quality_unmeasured: 'テスト通話はつながりましたが、品質を測定できませんでした。',
    connect_failed: 'テスト通話がつながりませんでした。',
    connect_timeout: 'テスト通話が時間内につながりませんでした。',
    service_down: '音声サービスが応答しないため、試していません。',
    check_timeout: '確認に時間がかかりすぎました。',
    cancelled: 'テストを中止しました。',
  },
  figures: '往復 {rtt} ms、ジッター {jitter} ms、損失 {loss} %、品質 {mos} / 4.5',
};

/** The words of a UI language (Japanese for `ja*`, English otherwise). */
const wordsFor = (language: string): Words => (/^ja\b/i.test(language) ? JA : EN);

const PARTS = ['microphone', 'network', 'service', 'connection'] as const;

/** Fills `panel` (the `check-result` element) with a check's result; `data-grade` carries the overall grade. */
export function renderCheck(panel: HTMLElement, result: CallCheckResult, language: string): void {
  const words = wordsFor(language);
  const doc = panel.ownerDocument;
  const heading = doc.createElement('p');
  heading.className = 'check-heading';
  heading.textContent = words.heading[result.overall];
  const list = doc.createElement('ul');
  for (const name of PARTS) {
    const part: (CheckPart & { rttMs?: number | null; jitterMs?: number | null; lossPct?: number | null; mos?: number | null }) | undefined = result[name];
    if (!part) continue;
    const item = doc.createElement('li');
    item.dataset.part = name;
    item.dataset.grade = part.grade;
    item.dataset.code = part.code;
    const label = doc.createElement('strong');
    label.textContent = `${words.parts[name]}: ${words.grades[part.grade]}`;
    const text = doc.createElement('span');
    const own = Object.prototype.hasOwnProperty.call(words.codes, part.code) ? words.codes[part.code] : part.message;
    const figures = name === 'connection' && part.mos != null
      ? ` ${fillTemplate(words.figures, { rtt: part.rttMs ?? '?', jitter: part.jitterMs ?? '?', loss: part.lossPct ?? '?', mos: part.mos }, language)}`
      : '';
    text.textContent = ` ${own}${figures}`;
    item.append(label, text);
    list.append(item);
  }
  panel.replaceChildren(heading, list);
  panel.dataset.grade = result.overall;
  panel.hidden = false;
}
