import { ENGLISH, type WidgetMessageTable } from './messages.js';
import { JAPANESE } from './messages-ja.js';

/** The UI languages built in, by primary language subtag. */
const BUILT_IN: Readonly<Record<string, WidgetMessageTable>> = { en: ENGLISH, ja: JAPANESE };

/**
 * The UI language (a BCP 47 tag): the `language` attribute, then the page's `<html lang>`, then the
 * browser's languages, the first that is a valid tag; `en` when none is.
 */
export function uiLanguage(attribute: string | null | undefined, pageLang: string | null | undefined, browser: readonly string[]): string {
  for (const tag of [attribute, pageLang, ...browser]) {
    const valid = canonical(tag?.trim());
    if (valid) return valid;
  }
  return 'en';
}

function canonical(tag: string | undefined): string | undefined {
  if (!tag) return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined; // not a language tag ("english", "en_US")
  }
}

/**
 * The widget's words in one UI language: the built-in table of its primary subtag (English for a
 * language not built in) with the page's own strings over it, and `Intl` formats for that language.
 */
export class WidgetText {
  readonly table: WidgetMessageTable;
  /** The built-in table used under the page's strings (`en` or `ja`). */
  readonly builtIn: string;

  constructor(readonly language: string, overrides: Partial<WidgetMessageTable> = {}) {
    const primary = language.split('-')[0]!.toLowerCase();
    this.builtIn = primary in BUILT_IN ? primary : 'en';
    // Own keys only: a page's `constructor` or `__proto__` is not a message.
    const own = Object.fromEntries(Object.entries(overrides).filter(([key, value]) => Object.hasOwn(ENGLISH, key) && typeof value === 'string'));
    this.table = { ...BUILT_IN[this.builtIn]!, ...own };
  }

  /** The string of `key`, each `{name}` replaced by `params[name]` ({@link fillTemplate}). */
  t(key: keyof WidgetMessageTable, params: Record<string, string | number> = {}): string {
    return fillTemplate(this.table[key], params, this.language);
  }

  /** A wait in whole seconds, in words ("5 seconds", "5 秒"). */
  seconds(seconds: number): string {
    return new Intl.NumberFormat(this.language, { style: 'unit', unit: 'second', unitDisplay: 'long', maximumFractionDigits: 0 }).format(seconds);
  }

  /** A latency: milliseconds under a second ("840 ms"), else seconds with one decimal ("1.2 s", "1.2 秒"). */
  latency(ms: number): string {
    return ms < 1000
      ? new Intl.NumberFormat(this.language, { style: 'unit', unit: 'millisecond', unitDisplay: 'short', maximumFractionDigits: 0 }).format(ms)
      : new Intl.NumberFormat(this.language, { style: 'unit', unit: 'second', unitDisplay: 'short', minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(ms / 1000);
  }

}

/**
 * `template` with each `{name}` replaced by `params[name]`, numbers formatted for `language` (an
 * unknown name stays as written; only the params' own names: a page's `{constructor}` is not
 * Object's). The widget's one template filler: its message tables and Test my setup's panel.
 */
export function fillTemplate(template: string, params: Record<string, string | number>, language: string): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (!Object.hasOwn(params, name)) return whole;
    const value = params[name]!;
    return typeof value === 'number' ? new Intl.NumberFormat(language).format(value) : value;
  });
}
