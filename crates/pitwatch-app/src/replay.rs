//! Replay at the workstation: the shoes of a table for the picker, and a shoe replayed from the
//! record step by step with the verdict on the record.

use pitwatch_api::convert::describe;
use pitwatch_api::dto::{
    ApiError, ErrorCode, ReplayStep, ShoePage, ShoeReplay, ShoeRow, ShuffleQuality, TableTile,
};
use pitwatch_model::Timestamp;
use pitwatch_rules::TableOutput as Output;
use pitwatch_store::Store;

use crate::live::Desk;
use crate::pit_model::{fold_event, show_view};

impl Desk {
    /// Up to `limit` (default 50, at most 500) shoes of `table` numbered below `before`, newest
    /// first, with their times and counts of rounds and incidents, for the replay picker.
    pub fn shoes(
        &self,
        table: &str,
        before: Option<u32>,
        limit: Option<u32>,
    ) -> Result<ShoePage, ApiError> {
        shoe_page(&self.record.store(), table, before, limit, false)
    }

    /// Shoe `shoe` of `table` (the last shoe if `None`) replayed from the record: the recorded
    /// bytes re-decoded and run through the engine again, step by step (only that shoe's and the
    /// shoe's before it, see [`pitwatch_recording::replay::replay_shoe`]), with a verdict on whether the
    /// record verified intact. The chains are verified in full on the first replay and after
    /// that only where they grew (see [`Desk::verify`]); the verdict says which.
    pub fn replay(&self, table: &str, shoe: Option<u32>) -> Result<ShoeReplay, ApiError> {
        // A connection of its own: a long replay does not hold up the incident workflow.
        let store = self
            .record
            .installation()
            .open_read_only(self.record.db())?;
        let live_store = self
            .record
            .installation()
            .open_read_only(self.record.db())?;
        // The table as it runs now, or as the desk started with it (a table a reload removed
        // still has its shoes on record).
        let config = self
            .live
            .running()
            .tables
            .iter()
            .chain(&self.pit.tables)
            .find(|t| t.name == table)
            .cloned();
        // A shoe whose device record was archived replays from the archive that holds it (the
        // file the record names, checked as it opens), the verdict the live record's and the
        // archive's own.
        let archived = match (shoe, store.table_id(table)?) {
            (Some(n), Some(id)) => pitwatch_recording::archived::archive_for_shoe(&store, id, n)?,
            _ => None,
        };
        let (source, archive) = match archived {
            Some((file, entry)) => (file, Some(entry)),
            None => (store, None),
        };
        let replay = shoe_replay(
            &source,
            table,
            shoe,
            |file| match &archive {
                None => self.verify(file),
                Some(entry) => {
                    let (live_intact, live_verdict) = self.verify(&live_store)?;
                    // Its signatures and structure (quick): re-hashing every row of an archive
                    // is `pitwatch archive check`'s, not every replay's.
                    let mut options = file.verify_options(pitwatch_store::Depth::Quick);
                    options.journals.clear();
                    options.archive = true;
                    let report = file.verify_with(&options)?;
                    let verdict = if report.intact() {
                        format!(
                            "{live_verdict}; the shoe is in archive {} ({}), whose signature \
                             covers it",
                            entry.number,
                            entry.path().display()
                        )
                    } else {
                        format!(
                            "{live_verdict}; archive {} does NOT verify: {}",
                            entry.number,
                            report.problems.join("; ")
                        )
                    };
                    Ok((live_intact && report.intact(), verdict))
                }
            },
            || {
                config
                    .as_ref()
                    .map(TableTile::from)
                    .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no table {table}")))
            },
        )?;
        // The look is audited (`replay.view`, see `viewed.rs`): which table and shoe.
        self.audit_view(
            crate::viewed::REPLAY_VIEWED,
            &format!("{table} shoe {}", replay.shoe),
        )?;
        Ok(replay)
    }
}

/// Shoe `shoe` of `table` (the last shoe if `None`) replayed from `store` step by step, with the
/// verdict `verify` gives on the record, folded into the tile `tile` makes: the workstation's
/// replay and the surveillance view's (from a mirror of the central copy) alike.
pub(crate) fn shoe_replay(
    store: &Store,
    table: &str,
    shoe: Option<u32>,
    verify: impl FnOnce(&Store) -> Result<(bool, String), ApiError>,
    tile: impl FnOnce() -> Result<TableTile, ApiError>,
) -> Result<ShoeReplay, ApiError> {
    let id = store
        .table_id(table)?
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no table {table} on record")))?;
    let none_yet = || {
        ApiError::new(
            ErrorCode::NotFound,
            format!("no shoe of {table} on record yet"),
        )
    };
    // The seq of the next shoe's first event when it ends this shoe's replay (see below).
    let mut closing_seq = None;
    let (shoe, steps, divergences, rule_book, shuffle) = match store.last_shoe(id)? {
        Some(last) => {
            let shoe = shoe.unwrap_or(last);
            let run = pitwatch_recording::replay::replay_shoe(store, table, shoe)?;
            let shuffle = run.shuffle.as_ref().map(ShuffleQuality::from);
            let mut steps = run.steps;
            // The next shoe's shuffle closes this one (its last round, its summary): that step
            // ends this shoe's replay, as the table stood before it, with what it closed here.
            if shoe < last {
                let next = pitwatch_recording::replay::replay_shoe(store, table, shoe + 1)?;
                if let (Some(first), Some(before)) = (next.steps.first(), steps.last()) {
                    let closed: Vec<_> = first
                        .outputs
                        .iter()
                        .filter(|o| pitwatch_recording::replay::about_shoe(o) == Some(shoe))
                        .cloned()
                        .collect();
                    if !closed.is_empty() {
                        closing_seq = Some(first.event.seq);
                        let view = before.view.clone();
                        steps.push(pitwatch_recording::replay::Step {
                            event: first.event.clone(),
                            outputs: closed,
                            view,
                        });
                    }
                }
            }
            (shoe, steps, run.divergences, run.rule_book, shuffle)
        }
        // No shoe starts stored yet (a record from before they were kept, until the table's
        // recorder resumes): the whole table, as before.
        None => {
            let whole = pitwatch_recording::replay::rebuild(store, table)?;
            let shoe = shoe
                .or_else(|| whole.shoes().last().map(|s| s.shoe))
                .ok_or_else(none_yet)?;
            let steps = whole
                .shoe_steps(shoe)
                .map(<[_]>::to_vec)
                .unwrap_or_default();
            let shuffle = whole
                .shuffles
                .iter()
                .find(|s| s.shoe == shoe)
                .map(ShuffleQuality::from);
            (shoe, steps, whole.divergences, whole.rule_book, shuffle)
        }
    };
    let (verified, verify_detail) = verify(store)?;
    if steps.is_empty() {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("no shoe {shoe} of {table}"),
        ));
    }
    let mut tile = tile()?;
    let mut out = Vec::with_capacity(steps.len());
    for step in steps {
        // The shuffle that closed the shoe is not folded in: the step shows the shoe it closed.
        if closing_seq != Some(step.event.seq) {
            fold_event(&mut tile, &step.event);
        }
        let mut completed = None;
        let mut irregularities = Vec::new();
        // What a shoe's first step closed of the shoe before is that shoe's (shown there).
        let own = |o: &&pitwatch_games::GameOutput| {
            pitwatch_recording::replay::about_shoe(o).is_none_or(|about| about >= shoe)
        };
        for output in step.outputs.iter().filter(own) {
            match output {
                Output::Round(round) => completed = Some(tile.play.take_replayed(round)),
                Output::Irregularity(i) => {
                    irregularities.push(format!("{}: {}", i.code.as_str(), i.message));
                }
                _ => {}
            }
        }
        // The shoe state at this step is the engine's own, as on the live tile.
        show_view(&mut tile, &step.view);
        let play = tile.play.replay_step(completed);
        out.push(ReplayStep {
            seq: step.event.seq,
            at: step.event.at.map(|t| t.to_string()),
            what: describe(&step.event.kind),
            cards_dealt: tile.cards_dealt,
            cards_left: tile.cards_left,
            cutting_card_out: tile.cutting_card_out,
            play,
            irregularities,
        });
    }
    Ok(ShoeReplay {
        table: table.to_owned(),
        rule_book,
        shoe,
        verified,
        verify_detail,
        divergences,
        steps: out,
        shuffle,
    })
}

/// Up to `limit` (default 50, at most 500) shoes of `table` numbered below `before`, newest
/// first, with their times and counts of rounds and incidents, for the replay picker; rounds
/// counted from the declared results when `declared` (a central copy holds no derived rounds).
pub(crate) fn shoe_page(
    store: &Store,
    table: &str,
    before: Option<u32>,
    limit: Option<u32>,
    declared: bool,
) -> Result<ShoePage, ApiError> {
    let limit = limit.unwrap_or(50).clamp(1, 500);
    let id = store
        .table_id(table)?
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no table {table} on record")))?;
    let mut listed = store.shoe_listing(id, before, limit + 1)?;
    if declared {
        // A copy without the derived rounds: the rounds its chained events declare.
        for shoe in &mut listed {
            shoe.rounds = store.results_declared(id, shoe)?;
        }
    }
    let more = listed.len() > limit as usize;
    listed.truncate(limit as usize);
    // Each shoe's shuffle quality, derived from its recorded cards (nothing stored).
    let numbers: Vec<u32> = listed.iter().map(|s| s.shoe).collect();
    let shuffles = pitwatch_recording::shuffle::recorded_shoe_shuffles(store, id, &numbers)?;
    let at = |ms: Option<i64>| {
        ms.and_then(Timestamp::from_unix_millis)
            .map(|t| t.to_string())
    };
    Ok(ShoePage {
        table: table.to_owned(),
        next: if more {
            listed.last().map(|s| s.shoe)
        } else {
            None
        },
        shoes: listed
            .iter()
            .map(|s| ShoeRow {
                shoe: s.shoe,
                started_at: at(s.started_ms),
                ended_at: at(s.ended_ms),
                rounds: s.rounds,
                incidents: s.incidents,
                shuffle: shuffles
                    .iter()
                    .find(|q| q.shoe == s.shoe)
                    .map(ShuffleQuality::from),
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use pitwatch_api::dto::TableTile;
    use pitwatch_api::games::ReplayPlay;
    use pitwatch_blackjack::book::Book;
    use pitwatch_blackjack::dealer::{deal, Config};
    use pitwatch_model::Timestamp;
    use pitwatch_protocols::ProtocolConfig;
    use pitwatch_recording::pit::PitConfig;
    use pitwatch_recording::recorder::TableRecorder;
    use pitwatch_store::{Sealing, Store};

    /// Records `events` dealt at table BJ-2 into `store` as Pitwatch-protocol bytes through the
    /// live recorder, event `i` received `step_ms` × `i` after the start, a transaction committed
    /// every `every` events, the session ended after the last; the start.
    fn record_bj2(
        store: &mut Store,
        book: &Book,
        events: &[pitwatch_model::TableEvent],
        step_ms: i64,
        every: usize,
    ) -> Timestamp {
        let protocol = ProtocolConfig::by_name("pitwatch").unwrap();
        let mut encoder = protocol.encoder();
        let start = Timestamp::from_unix_millis(1_796_025_600_000).unwrap();
        let mut recorder = TableRecorder::resume(
            store,
            "BJ-2",
            "blackjack",
            book.clone(),
            None,
            Some(protocol),
            start,
        )
        .unwrap();
        recorder
            .connect(store, "/dev/ttyUSB0", Default::default(), start)
            .unwrap();
        let mut derived = Vec::new();
        let mut batch = store.batch(start).unwrap();
        let mut at = start;
        for (i, event) in events.iter().enumerate() {
            at = Timestamp::from_unix_millis(start.unix_millis() + i as i64 * step_ms).unwrap();
            if let Some(bytes) = encoder.encode(event) {
                recorder
                    .ingest(&mut batch, at, &bytes, &mut derived)
                    .unwrap();
            }
            if i % every == every - 1 {
                batch.commit().unwrap();
                batch = store.batch(at).unwrap();
            }
        }
        let session = recorder
            .disconnect(&mut batch, at, &mut derived)
            .unwrap()
            .unwrap();
        batch.commit().unwrap();
        store.end_session(session, at, "end of test").unwrap();
        start
    }

    /// Every round of a shoe completes in that shoe's own replay, the last one too (which the
    /// next shoe's shuffle closes: a step of its own at the end), and no shoe's replay completes
    /// a round of another. (The last shoe on record is the table's current one: its last round
    /// closes when the next round or shoe comes, as on the live tile.)
    #[test]
    fn a_shoes_replay_completes_its_last_round_and_no_other_shoes() {
        let book = Book::builtin("nz-blackjack").unwrap();
        let dealt = deal(
            &book,
            &Config {
                seed: 3,
                shoes: 3,
                ..Config::default()
            },
        );
        let dir = tempfile::tempdir().unwrap();
        let sealing = Sealing::key_file(dir.path().join("signing.key"));
        let mut store = Store::open(dir.path().join("pit.db"), &sealing).unwrap();
        record_bj2(&mut store, &book, &dealt.events, 0, usize::MAX);

        let pit = PitConfig::load(
            "[site]\nname = \"Replay\"\n\n[[table]]\nname = \"BJ-2\"\ngame = \"blackjack\"\nrules = \"nz-blackjack\"\n\
             device = { protocol = \"pitwatch\" }\nlink = { kind = \"tcp\", address = \"127.0.0.1:9\" }\n",
        )
        .unwrap();
        let whole = pitwatch_recording::replay::rebuild(&store, "BJ-2").unwrap();
        let shoes = whole.shoes();
        assert!(shoes.len() >= 3, "{} shoes", shoes.len());
        for summary in &shoes[..shoes.len() - 1] {
            let replay = super::shoe_replay(
                &store,
                "BJ-2",
                Some(summary.shoe),
                |_| Ok((true, String::new())),
                || Ok(TableTile::from(&pit.tables[0])),
            )
            .unwrap();
            let completed: Vec<(u32, u32)> = replay
                .steps
                .iter()
                .filter_map(|s| match &s.play {
                    ReplayPlay::Blackjack(step) => {
                        step.completed.as_ref().map(|r| (r.shoe, r.round))
                    }
                    _ => None,
                })
                .collect();
            let expected: Vec<(u32, u32)> = whole
                .rounds()
                .filter(|r| r.shoe() == summary.shoe)
                .map(|r| (r.shoe(), r.round()))
                .collect();
            assert!(!expected.is_empty());
            assert_eq!(completed, expected, "shoe {}", summary.shoe);
        }
    }

    /// A shoe whose device record was archived replays at the workstation as it did before: from
    /// the archive the record names, the look audited in the live record, the verdict saying
    /// where the shoe is.
    #[test]
    fn an_archived_shoe_replays_at_the_desk_as_before() {
        use crate::access::Principal;
        use crate::setup::DeskOptions;
        use crate::testkit::{test_store, ALICE};

        let book = Book::builtin("nz-blackjack").unwrap();
        let dealt = deal(
            &book,
            &Config {
                seed: 5,
                shoes: 6,
                ..Config::default()
            },
        );
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("pit.db");
        let mut store = test_store(&db);
        crate::accounts::create_first_admin(
            &mut store,
            "alice",
            ALICE,
            "ws",
            Timestamp::from_unix_millis(1_796_025_600_000).unwrap(),
        )
        .unwrap();
        let start = record_bj2(&mut store, &book, &dealt.events, 1000, 5);
        let table = store.table_id("BJ-2").unwrap().unwrap();
        let pit = PitConfig::load(
            "[site]\nname = \"Replay\"\n\n[[table]]\nname = \"BJ-2\"\ngame = \"blackjack\"\nrules = \"nz-blackjack\"\n\
             device = { protocol = \"pitwatch\" }\nlink = { kind = \"tcp\", address = \"127.0.0.1:9\" }\n",
        )
        .unwrap();
        let tile = || Ok(TableTile::from(&pit.tables[0]));
        let before =
            super::shoe_replay(&store, "BJ-2", Some(1), |_| Ok((true, String::new())), tile)
                .unwrap();

        // Archived up to the middle of shoe 5 (it and the two shoes before it stay whole in the
        // live record), at a "now" a hundred days on.
        let third = store.shoe_start(table, 5).unwrap().unwrap().first_seq;
        let cut = Timestamp::from_unix_millis(start.unix_millis() + third as i64 * 1000 + 20_000)
            .unwrap();
        let admin = Principal {
            user: "alice".into(),
            role: pitwatch_store::Role::Admin,
            workstation: "ws".into(),
        };
        let later = Timestamp::from_unix_millis(cut.unix_millis() + 100 * 86_400_000).unwrap();
        let entry = crate::archive::archive(
            &mut store,
            &admin,
            &Default::default(),
            &db,
            Some(cut),
            later,
        )
        .unwrap();
        assert!(
            !store.has_event(table, 1).unwrap(),
            "shoe 1 left the live record"
        );
        drop(store);

        let (desk, updates) = crate::live::Desk::start(DeskOptions {
            pit: pit.clone(),
            ..DeskOptions::demo(db.clone())
        })
        .unwrap();
        drop(updates);
        desk.login("alice", ALICE).unwrap();
        let again = desk.replay("BJ-2", Some(1)).unwrap();
        assert!(again.verified, "{}", again.verify_detail);
        assert!(
            again
                .verify_detail
                .contains(&format!("archive {}", entry.number)),
            "{}",
            again.verify_detail
        );
        assert_eq!(again.divergences, Vec::<String>::new());
        assert_eq!(again.steps, before.steps);
        let looks = desk
            .record
            .store()
            .audit_details(crate::viewed::REPLAY_VIEWED, "BJ-2 shoe 1")
            .unwrap();
        assert_eq!(looks.len(), 1);
    }
}
