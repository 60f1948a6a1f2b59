// Types of scripts/firefox.mjs (imported by test/firefox).
export declare const NO_FIREFOX_MESSAGE: string;
export declare const NO_PULSEAUDIO_MESSAGE: string;
export declare function findFirefox(): string | null;
export declare function hasPulseAudio(): boolean;
