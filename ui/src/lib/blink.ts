// The alert flash of tiles, the table screen and the banner. CSS animations would repaint those
// areas every frame for as long as an alert is open (the window paints on the CPU, see
// docs/benchmarks.md); a class on the root toggled twice a second gives the same flash with two
// repaints a second. Elements style themselves under `:global(html.blink-on)`.

/** The class set on the root element during the "on" half of the flash. */
export const BLINK_CLASS = "blink-on";

/** Half a flash: on for this long, then off for as long (1 Hz, well under 3 flashes a second). */
export const BLINK_HALF_MS = 500;

/**
 * Toggles `BLINK_CLASS` on `root` every `half` ms while `active()` says an alert is open, and
 * keeps it off otherwise. Returns a function that stops it and clears the class.
 */
export function startBlinking(
  root: { classList: DOMTokenList },
  active: () => boolean,
  half = BLINK_HALF_MS,
): () => void {
  let on = false;
  const timer = setInterval(() => {
    const next = active() ? !on : false;
    if (next !== on) {
      on = next;
      root.classList.toggle(BLINK_CLASS, on);
    }
  }, half);
  return () => {
    clearInterval(timer);
    root.classList.remove(BLINK_CLASS);
  };
}
