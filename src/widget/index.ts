/**
 * `kb-voice/widget`: importing it registers the `<kb-voice-widget>` custom element (once; nothing
 * on a server). The same module, bundled with its dependencies, is `dist/kb-voice-widget.js`, the
 * one-file build for a `<script type="module">` tag (`kb-voice/widget/standalone`). Its types
 * include the element's JSX typings for React (`./jsx.d.ts`).
 *
 * @example
 * <script type="module" src="/kb-voice-widget.js"></script>
 * <kb-voice-widget relay-url="/api/voice" ai-id="YOUR-ROBOT-ID" language="en"></kb-voice-widget>
 */
import { defineKbVoiceWidget } from './define.js';

export { KbVoiceWidget, type KbVoiceWidgetEventMap } from './element.js';
export { defineKbVoiceWidget, WIDGET_TAG } from './define.js';
export { ENGLISH as WIDGET_MESSAGES_EN, type WidgetMessages, type WidgetMessageTable, type ErrorMessages } from './messages.js';
export { JAPANESE as WIDGET_MESSAGES_JA } from './messages-ja.js';
// A hand-written declaration file (copied to dist by the build): re-exporting from it puts the
// element's React JSX typings in every program that imports kb-voice/widget.
export type { KbVoiceWidgetJsxProps } from './jsx.js';

defineKbVoiceWidget();
