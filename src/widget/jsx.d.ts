// JSX typings of <kb-voice-widget> for React 18/19 with TypeScript, shipped as dist/widget/jsx.d.ts
// and referenced by kb-voice/widget's own types: `import 'kb-voice/widget'` is all a TSX file needs.
// React 19 sets `messages` and `sessionOptions` as properties and adds `on<event>` props as
// listeners of the element's events (`onturn`, `onstate`...); React 18 sets attributes only.
//
// The two @ts-ignore lines are deliberate: a project without @types/react (no React, or Preact, Vue)
// has no 'react' module to augment and none of React's names. There the block types nothing and
// must not fail `tsc` even with skipLibCheck off (the package checks run both kinds of consumer).
import type { KbVoiceWidget, KbVoiceWidgetEventMap } from './element.js';
import type { WidgetMessageTable } from './messages.js';

/** The attributes, properties and events of `<kb-voice-widget>` in JSX (besides an element's usual ones). */
export interface KbVoiceWidgetJsxProps {
  /** The robot to talk to (required to start a call). */
  'ai-id'?: string;
  /** The relay's base URL (default `/api/voice`). */
  'relay-url'?: string;
  /** Conversation and UI language (BCP 47, e.g. `ja`, `en`); default the page's `lang`, then the browser's. */
  language?: string;
  /** The page's own strings over the built-in table (docs/widget.md lists the keys). React 19 sets it as a property. */
  messages?: Partial<WidgetMessageTable>;
  /** `auto` (default) or `push-to-talk`: the visitor holds the talk button (or Space) while speaking. */
  'turn-taking'?: 'auto' | 'push-to-talk';
  /** `off`: no sources nor rating under answers (nothing read, the sources UI never loaded). */
  sources?: 'on' | 'off';
  /** More VoiceSession options for the next call. React 19 sets it as a property. */
  sessionOptions?: KbVoiceWidget['sessionOptions'];
  onsession?: (event: KbVoiceWidgetEventMap['session']) => void;
  onstate?: (event: KbVoiceWidgetEventMap['state']) => void;
  onturn?: (event: KbVoiceWidgetEventMap['turn']) => void;
  ontranscript?: (event: KbVoiceWidgetEventMap['transcript']) => void;
  onmute?: (event: KbVoiceWidgetEventMap['mute']) => void;
  ontalking?: (event: KbVoiceWidgetEventMap['talking']) => void;
  onerror?: (event: KbVoiceWidgetEventMap['error']) => void;
}

// @ts-ignore -- no @types/react in this project: nothing to augment (see above)
declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      // @ts-ignore -- React's HTMLAttributes and RefAttributes: absent without @types/react
      'kb-voice-widget': HTMLAttributes<KbVoiceWidget> & RefAttributes<KbVoiceWidget> & KbVoiceWidgetJsxProps;
    }
  }
}
