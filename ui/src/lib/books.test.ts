import { describe, expect, it } from "vitest";
import { sectionTitle, settingLabel, valueLabel } from "./books";

describe("a rule book's settings in words", () => {
  it("names sections, settings and citations", () => {
    expect(sectionTitle("cutting_card")).toBe("Cutting card");
    expect(sectionTitle("variants.draw")).toBe("variants.draw");
    expect(settingLabel("cutting_card", "min_from_back")).toBe("min from back");
    expect(settingLabel("cite", "MISSING_THIRD_CARD")).toBe("Missing third card (MISSING_THIRD_CARD)");
    expect(settingLabel("cite", "UNAUTHORISED_THIRD_CARD/banker")).toMatch(/\(UNAUTHORISED_THIRD_CARD\), banker$/);
    expect(settingLabel("cite", "NEW_CODE")).toBe("NEW_CODE");
  });

  it("shows a quoted word bare and anything else as written", () => {
    expect(valueLabel('"first_card_value"')).toBe("first card value");
    expect(valueLabel("[8, 9]")).toBe("[8, 9]");
    expect(valueLabel("20")).toBe("20");
  });
});
