/**
 * `kb-voice/widget`: importing it registers the `<kb-voice-widget>` custom element (once; nothing
 * on a server). The same module, bundled with its dependencies, is `dist/kb-voice-widget.js`, the
 * one-file build for a `<script type="module">` tag (`kb-voice/widget/standalone`).
 *
 * @example
 * <script type="module" src="/kb-voice-widget.js"></script>
 * <kb-voice-widget relay-url="/api/voice" ai-id="YOUR-ROBOT-ID" language="en"></kb-voice-widget>
 */
import { defineKbVoiceWidget } from './define.js';

export { KbVoiceWidget, type KbVoiceWidgetEventMap } from './element.js';
export { defineKbVoiceWidget, WIDGET_TAG } from './define.js';

defineKbVoiceWidget();
