//! Irregularities: flagged with the book's citation and held until the round they belong to settles (one fault, one incident).

use super::*;

impl Engine {
    // ----- irregularities -----

    pub(super) fn flag(
        &mut self,
        code: Code,
        round: Option<u32>,
        seq: u64,
        evidence: &[u64],
        message: String,
    ) {
        self.flag_with(code, Cite::Code, round, seq, evidence, message);
    }

    /// Raises an irregularity. One that belongs to a round is held until the round is settled,
    /// and what else is found in the same round is added to it (one fault, one incident); one
    /// outside any round is output at once.
    pub(super) fn flag_with(
        &mut self,
        code: Code,
        cite: Cite,
        round: Option<u32>,
        seq: u64,
        evidence: &[u64],
        message: String,
    ) {
        let mut evidence = evidence.to_vec();
        evidence.sort_unstable();
        evidence.dedup();
        let rule = match cite {
            Cite::Code => self.book.cite(code),
            Cite::BankerCard => self.book.cite_banker_card(code),
            Cite::Steps => self.book.cite_qualified(code, "steps"),
        };
        let irregularity = Irregularity {
            code,
            severity: code.severity(),
            rule: rule.to_owned(),
            rule_book: self.book.id().to_owned(),
            shoe: self.shoe_no,
            round,
            seq,
            evidence,
            message,
            partial: self.shoe_open && self.shoe.partial,
            also: pitwatch_rules::CodeSet::EMPTY,
        };
        if round.is_none() {
            self.out.push_back(Output::Irregularity(irregularity));
            return;
        }
        match &mut self.pending {
            Some(open) if open.shoe == irregularity.shoe && open.round == round => {
                open.absorb(irregularity);
            }
            _ => {
                self.settle();
                self.pending = Some(irregularity);
            }
        }
    }

    /// Outputs the irregularity of the round being settled, if any.
    pub(super) fn settle(&mut self) {
        if let Some(irregularity) = self.pending.take() {
            self.out.push_back(Output::Irregularity(irregularity));
        }
    }
}
