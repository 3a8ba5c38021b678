// A rule book's settings as the add-a-table form shows them before the book is given to a table
// (crates/pitwatch-games/src/parameters.rs reads them, with the rules they cite).
import { codeLabel } from "./incidents";

const SECTIONS: Readonly<Record<string, string>> = {
  shoe: "Shoe",
  cut: "Cut",
  cutting_card: "Cutting card",
  burn: "Burn",
  end_of_shoe: "End of the shoe",
  drawing: "Drawing (Table of Play)",
  "drawing.banker_draws_when_player_drew": "Banker draws when the Player drew (Player's third card: Banker totals)",
  shuffle: "Shuffle integrity",
  cite: "Irregularities and the rules they cite",
  deck: "Deck",
  play: "Play",
  action: "Action",
  bonus: "Bonus",
};

/** A section's heading in words; one this window does not know is shown as the book heads it. */
export function sectionTitle(name: string): string {
  return SECTIONS[name] ?? name;
}

/** A setting's name: an irregularity's words in `cite` (its case after a slash), else the key with spaces. */
export function settingLabel(section: string, key: string): string {
  if (section === "cite") {
    const [code = key, ...cases] = key.split("/");
    const label = codeLabel(code);
    return cases.length === 0 ? label : `${label}, ${cases.join(", ").replace(/_/g, " ")}`;
  }
  return key.replace(/_/g, " ");
}

/** A value as the book writes it, a quoted word shown bare ("last_coup" → last coup). */
export function valueLabel(value: string): string {
  const m = /^"(.*)"$/.exec(value);
  return m && m[1] !== undefined ? m[1].replace(/_/g, " ") : value;
}
