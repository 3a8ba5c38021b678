// Untrusted text in the window: the same rule as crates/pitwatch-report/src/untrusted.rs (names,
// notes, table and site names, device text). Svelte escapes HTML; this shows what it does not:
// controls (but the line feed and the tab), Unicode's format characters (category Cf: the
// bidirectional embeddings, overrides, isolates and marks, zero-width characters, the soft
// hyphen, tags) and the line and paragraph separators are replaced by visible markers such as
// `<U+202E>`. `Untrusted.svelte` then sets the text in a <bdi> (isolated, so right-to-left
// letters in it cannot reorder what is around it) with its line breaks kept inside that element.

/** Whether code point `cp` is a format character (general category Cf, Unicode 15.1). */
export function isFormat(cp: number): boolean {
  return (
    cp === 0x00ad ||
    (cp >= 0x0600 && cp <= 0x0605) ||
    cp === 0x061c ||
    cp === 0x06dd ||
    cp === 0x070f ||
    cp === 0x0890 ||
    cp === 0x0891 ||
    cp === 0x08e2 ||
    cp === 0x180e ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    (cp >= 0x2066 && cp <= 0x206f) ||
    cp === 0xfeff ||
    (cp >= 0xfff9 && cp <= 0xfffb) ||
    cp === 0x110bd ||
    cp === 0x110cd ||
    (cp >= 0x13430 && cp <= 0x1343f) ||
    (cp >= 0x1bca0 && cp <= 0x1bca3) ||
    (cp >= 0x1d173 && cp <= 0x1d17a) ||
    cp === 0xe0001 ||
    (cp >= 0xe0020 && cp <= 0xe007f)
  );
}

/** Whether code point `cp` may not be shown as it is. */
export function isHidden(cp: number): boolean {
  const control = (cp < 0x20 && cp !== 0x0a && cp !== 0x09) || (cp >= 0x7f && cp <= 0x9f);
  return control || isFormat(cp) || cp === 0x2028 || cp === 0x2029;
}

/** The visible marker of code point `cp`: `<U+202E>`. */
export function marker(cp: number): string {
  return `<U+${cp.toString(16).toUpperCase().padStart(4, "0")}>`;
}

/** `text` with every hidden character replaced by its marker; nothing else changes. */
export function visible(text: string): string {
  let out = "";
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    out += isHidden(cp) ? marker(cp) : ch;
  }
  return out;
}

/** The lines of `text` (split at line feeds), each shown visibly. */
export function visibleLines(text: string): string[] {
  return visible(text).split("\n");
}
