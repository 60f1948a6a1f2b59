/**
 * Glyph widths (1/1000 em) of Helvetica for the printable ASCII codes 32–126, from Adobe's
 * Helvetica AFM (WinAnsi code points). Used for standard-14 fonts that carry no `/Widths`, and by
 * the PDF writer so that written and read positions agree.
 */
const ASCII_WIDTHS = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space ! " # $ % & ' ( ) * + , - . /
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0-9 : ; < = > ?
  1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ A-O
  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P-Z [ \ ] ^ _
  333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` a-o
  556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p-z { | } ~
];

/** Width by character code; undefined outside 32–126. */
export const HELVETICA_WIDTHS: Readonly<Record<number, number>> = Object.fromEntries(ASCII_WIDTHS.map((w, i) => [i + 32, w]));

/** First character code of {@link HELVETICA_WIDTH_LIST}. */
export const HELVETICA_FIRST_CHAR = 32;
/** Widths of codes 32–126 in order, as written to a font's `/Widths`. */
export const HELVETICA_WIDTH_LIST: readonly number[] = ASCII_WIDTHS;
