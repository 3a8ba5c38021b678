//! Evidence packs (issue 32) checked with no database and only the public key: an honest pack
//! verifies, and every tampering (a byte of a row, of the report, a row removed, a pack signed
//! by another key, a member added) is found and named.

mod common;

use common::*;
use ed25519_dalek::Signer;
use pitwatch_store::pack::{self, check_pack, tar, Manifest, PackRequest, Rows, Trust};
use pitwatch_store::IncidentId;

const PDF: &[u8] = b"%PDF-1.7 the incident report";

/// A shift recorded, a look at incident 1 audited, and incident 1's pack.
fn packed() -> (Pit, Vec<u8>) {
    let pit = Pit::new();
    pit.record_a_shift();
    let mut store = pit.open();
    let mut batch = store.batch(t(50)).unwrap();
    batch
        .append_audit("ana", "incident.view", "incident 1", "{}", t(50))
        .unwrap();
    batch
        .append_audit("ana", "incident.view", "incident 2", "{}", t(50))
        .unwrap();
    batch.commit().unwrap();
    let bytes = store
        .evidence_pack(&PackRequest {
            incident: IncidentId(1),
            created_at: "2026-12-01T10:00:00Z",
            created_unix: 1_796_000_000,
            created_by: "ana",
            workstation: "pit-3",
            report_pdf: PDF,
            surveillance: Vec::new(),
        })
        .unwrap();
    (pit, bytes)
}

fn trust(pit: &Pit) -> Trust {
    Trust::Key(pit.trusted().public())
}

fn members(bytes: &[u8]) -> Vec<tar::Member> {
    tar::read(bytes).unwrap()
}

fn member<'a>(members: &'a mut [tar::Member], name: &str) -> &'a mut Vec<u8> {
    &mut members.iter_mut().find(|m| m.name == name).unwrap().bytes
}

/// The installation's secret, read from its key file as the key holder could.
fn secret(pit: &Pit) -> ed25519_dalek::SigningKey {
    let text = std::fs::read_to_string(&pit.key).unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("ed25519-secret "))
        .unwrap();
    let bytes: [u8; 32] = hex::decode(line.trim()).unwrap().try_into().unwrap();
    ed25519_dalek::SigningKey::from_bytes(&bytes)
}

/// `members` with the manifest's member hashes recomputed and signed again by `key`, as the
/// holder of `key` would make a pack of changed members.
fn resigned(mut members: Vec<tar::Member>, key: &ed25519_dalek::SigningKey) -> Vec<u8> {
    let mut manifest: Manifest =
        serde_json::from_slice(member(&mut members, pack::MANIFEST)).unwrap();
    for digest in &mut manifest.members {
        let bytes = members.iter().find(|m| m.name == digest.name).unwrap();
        digest.bytes = bytes.bytes.len() as u64;
        digest.sha256 = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&bytes.bytes));
    }
    let public = pitwatch_store::PublicKey::from_bytes(key.verifying_key().as_bytes()).unwrap();
    manifest.public_key = public.to_hex();
    manifest.fingerprint = public.fingerprint();
    let json = serde_json::to_vec_pretty(&manifest).unwrap();
    let signature = key.sign(&pack::manifest_message(&json));
    *member(&mut members, pack::MANIFEST) = json;
    *member(&mut members, pack::SIGNATURE) =
        format!("{}\n", hex::encode(signature.to_bytes())).into_bytes();
    tar::write(&members, 0).unwrap()
}

fn assert_fails(report: &pack::PackReport, words: &[&str]) {
    assert!(!report.verifies(), "the tampering went unseen: {report:#?}");
    let all = report.problems.join("\n");
    for word in words {
        assert!(
            all.contains(word),
            "expected the problems to say {word:?}:\n{all}"
        );
    }
}

#[test]
fn an_honest_pack_verifies_with_the_public_key_alone() {
    let (pit, bytes) = packed();
    let public = pit.trusted().public();
    // What follows reads nothing but the bytes and the key.
    for trust in [
        Trust::Key(public),
        Trust::Fingerprint(public.fingerprint()),
        Trust::parse(&format!(
            "# public key fingerprint: {}\n",
            public.fingerprint()
        ))
        .unwrap(),
    ] {
        let report = check_pack(&bytes, &trust);
        assert!(report.verifies(), "{:#?}", report.problems);
        assert!(report.pinned);
    }
    let report = check_pack(&bytes, &Trust::Key(public));
    let audited: Vec<i64> = {
        let conn = pit.sql();
        let mut statement = conn
            .prepare("SELECT id FROM audit_log WHERE subject = 'incident 1' ORDER BY id")
            .unwrap();
        let ids = statement.query_map([], |r| r.get(0)).unwrap();
        ids.collect::<Result<_, _>>().unwrap()
    };
    drop(pit);
    let manifest = report.manifest.as_ref().unwrap();
    assert_eq!(
        (manifest.incident, manifest.table.as_str(), manifest.shoe),
        (1, "BAC-1", Some(1))
    );
    assert_eq!(report.evidence["incidents"], [1]);
    // Opened, acknowledged, resolved; one note; the workflow's audit rows and the look at
    // incident 1 (not incident 2's).
    assert_eq!(report.evidence["incident_changes"].len(), 3);
    assert_eq!(report.evidence["incident_notes"].len(), 1);
    assert_eq!(report.evidence["audit_log"], audited);
    assert!(audited.len() >= 2, "{audited:?}");
    // The shoe's 30 events, their frames and bytes.
    for table in ["events", "frames", "raw_chunks"] {
        assert_eq!(report.evidence[table].len(), 30, "{table}");
    }
    assert!(!report.checkpoints.is_empty());
    // A pack checked against the key it names itself is consistent, but not pinned.
    let own = check_pack(&bytes, &Trust::PackOwn);
    assert!(own.verifies() && !own.pinned);
}

#[test]
fn the_linked_checkpoints_are_the_record_s_own() {
    let (pit, bytes) = packed();
    let store = Store::open_read_only(&pit.db).unwrap();
    let report = check_pack(&bytes, &trust(&pit));
    let conn = pit.sql();
    for checkpoint in &report.checkpoints {
        let stored: Vec<u8> = conn
            .query_row(
                "SELECT hash FROM checkpoints WHERE id = ?1",
                [checkpoint.id],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(stored, checkpoint.hash, "checkpoint {}", checkpoint.id);
        assert_eq!(Some(checkpoint.record.clone()), store.record_id().unwrap());
    }
}

#[test]
fn a_byte_changed_in_a_row_is_found() {
    let (pit, bytes) = packed();
    let mut changed = members(&bytes);
    let rows = member(&mut changed, pack::ROWS);
    let text = String::from_utf8(rows.clone())
        .unwrap()
        .replacen("Camera 14", "Camera 15", 1);
    *rows = text.into_bytes();
    // As it is: the member no longer has the hash the signed manifest gives.
    let as_is = tar::write(&changed, 0).unwrap();
    assert_fails(
        &check_pack(&as_is, &trust(&pit)),
        &["rows.json was changed"],
    );
    // Even re-signed by the installation's own key, the row no longer hashes to the head the
    // checkpoint signed when it was written.
    let again = resigned(changed, &secret(&pit));
    assert_fails(
        &check_pack(&again, &trust(&pit)),
        &["incident_notes", "do not hash to the head it signs"],
    );
}

#[test]
fn a_byte_changed_in_the_report_is_found() {
    let (pit, bytes) = packed();
    let mut changed = members(&bytes);
    member(&mut changed, pack::REPORT)[3] ^= 1;
    let changed = tar::write(&changed, 0).unwrap();
    assert_fails(
        &check_pack(&changed, &trust(&pit)),
        &["report.pdf was changed"],
    );
    // The same byte changed in the archive itself, in place.
    let at = bytes.windows(PDF.len()).position(|w| w == PDF).unwrap();
    let mut in_place = bytes.clone();
    in_place[at + 5] ^= 1;
    assert_fails(
        &check_pack(&in_place, &trust(&pit)),
        &["report.pdf was changed"],
    );
}

#[test]
fn a_row_removed_is_found() {
    let (pit, bytes) = packed();
    let mut changed = members(&bytes);
    let mut rows: Rows = serde_json::from_slice(member(&mut changed, pack::ROWS)).unwrap();
    let audit = rows
        .chains
        .iter_mut()
        .find(|c| c.table == "audit_log")
        .unwrap();
    audit.segments[0].rows.remove(0);
    *member(&mut changed, pack::ROWS) = serde_json::to_vec(&rows).unwrap();
    let as_is = tar::write(&changed, 0).unwrap();
    assert_fails(
        &check_pack(&as_is, &trust(&pit)),
        &["rows.json was changed"],
    );
    let again = resigned(changed, &secret(&pit));
    assert_fails(
        &check_pack(&again, &trust(&pit)),
        &["audit_log", "evidence rows"],
    );
    // A link row removed from the middle of a segment breaks the chain there.
    let mut changed = members(&bytes);
    let mut rows: Rows = serde_json::from_slice(member(&mut changed, pack::ROWS)).unwrap();
    let events = rows
        .chains
        .iter_mut()
        .find(|c| c.table == "events")
        .unwrap();
    let segment = events
        .segments
        .iter_mut()
        .find(|s| s.rows.len() > 2)
        .unwrap();
    segment.rows.remove(1);
    *member(&mut changed, pack::ROWS) = serde_json::to_vec(&rows).unwrap();
    let again = resigned(changed, &secret(&pit));
    assert_fails(
        &check_pack(&again, &trust(&pit)),
        &["events row", "does not follow"],
    );
}

#[test]
fn a_pack_signed_by_a_foreign_key_is_refused() {
    let (pit, bytes) = packed();
    let foreign = ed25519_dalek::SigningKey::from_bytes(&[9; 32]);
    let forged = resigned(members(&bytes), &foreign);
    assert_fails(
        &check_pack(&forged, &trust(&pit)),
        &["not the trusted one", "not the pack's"],
    );
    // And the honest pack checked against someone else's key.
    let stranger = SigningKey::from_secret([5; 32]).public();
    assert_fails(
        &check_pack(&bytes, &Trust::Key(stranger)),
        &["not the trusted one"],
    );
}

#[test]
fn a_member_added_or_a_broken_archive_is_found() {
    let (pit, bytes) = packed();
    let mut more = members(&bytes);
    more.push(tar::Member {
        name: "extra.txt".into(),
        bytes: b"planted".to_vec(),
    });
    let more = tar::write(&more, 0).unwrap();
    assert_fails(&check_pack(&more, &trust(&pit)), &["extra.txt"]);
    assert_fails(
        &check_pack(&bytes[..bytes.len() / 2], &trust(&pit)),
        &["not an evidence pack"],
    );
    assert_fails(&check_pack(b"", &trust(&pit)), &["not an evidence pack"]);
}

#[test]
fn a_read_only_store_or_an_unknown_incident_makes_no_pack() {
    let (pit, _) = packed();
    let request = |incident| PackRequest {
        incident: IncidentId(incident),
        created_at: "2026-12-01T10:00:00Z",
        created_unix: 0,
        created_by: "ana",
        workstation: "pit-3",
        report_pdf: PDF,
        surveillance: Vec::new(),
    };
    let reader = Store::open_read_only(&pit.db).unwrap();
    assert!(reader.evidence_pack(&request(1)).is_err());
    assert!(pit.open().evidence_pack(&request(99)).is_err());
}

#[test]
fn a_surveillance_entry_not_among_the_incident_s_notes_is_found() {
    let (pit, bytes) = packed();
    let mut changed = members(&bytes);
    let mut manifest: Manifest =
        serde_json::from_slice(member(&mut changed, pack::MANIFEST)).unwrap();
    manifest.surveillance.push(pack::SurveillanceEntry {
        user: "ana".into(),
        at: "2026-12-01T09:00:00Z".into(),
        text: "Surveillance log\nCamera or recording: CAM-1".into(),
    });
    *member(&mut changed, pack::MANIFEST) = serde_json::to_vec(&manifest).unwrap();
    // Even signed by the installation's key, the entry must be a chained note of the incident.
    let again = resigned(changed, &secret(&pit));
    assert_fails(
        &check_pack(&again, &trust(&pit)),
        &[
            "surveillance log entry by ana",
            "not among the incident's notes",
        ],
    );
}

#[test]
fn a_segment_split_in_two_at_one_checkpoint_is_found() {
    // Rows cut off from the head they were signed under, as a second segment claiming the same
    // checkpoint, would otherwise be linked to nothing.
    let (pit, bytes) = packed();
    let mut changed = members(&bytes);
    let mut rows: Rows = serde_json::from_slice(member(&mut changed, pack::ROWS)).unwrap();
    let events = rows
        .chains
        .iter_mut()
        .find(|c| c.table == "events")
        .unwrap();
    let index = events
        .segments
        .iter()
        .position(|s| s.rows.len() > 2)
        .unwrap();
    let mut tail = events.segments[index].clone();
    let mut head_rows: Vec<pack::PackRow> = tail.rows.drain(..1).collect();
    // The tail starts from the first row's hash as the record holds it, so it still reaches the
    // signed head; the first row, now in a segment of its own, is changed.
    let first = head_rows[0].columns["id"].as_i64().unwrap();
    let stored: Vec<u8> = pit
        .sql()
        .query_row("SELECT hash FROM events WHERE id = ?1", [first], |r| {
            r.get(0)
        })
        .unwrap();
    tail.prev = hex::encode(stored);
    head_rows[0]
        .columns
        .insert("body".into(), serde_json::Value::from("{\"forged\":true}"));
    events.segments[index].rows = head_rows;
    events.segments.insert(index + 1, tail);
    *member(&mut changed, pack::ROWS) = serde_json::to_vec(&rows).unwrap();
    let again = resigned(changed, &secret(&pit));
    assert_fails(
        &check_pack(&again, &trust(&pit)),
        &["two segments of events end at checkpoint"],
    );
}

#[test]
fn an_audit_row_about_something_else_passed_off_as_evidence_is_found() {
    // Incident 2's look is in the record, as a link at most; marked as incident 1's evidence
    // (and the manifest's count raised to match, re-signed), it is refused.
    let (pit, bytes) = packed();
    let mut changed = members(&bytes);
    let mut rows: Rows = serde_json::from_slice(member(&mut changed, pack::ROWS)).unwrap();
    let audit = rows
        .chains
        .iter_mut()
        .find(|c| c.table == "audit_log")
        .unwrap();
    let other = audit
        .segments
        .iter_mut()
        .flat_map(|s| s.rows.iter_mut())
        .find(|r| r.columns["subject"] == "incident 2")
        .expect("incident 2's look is a link row of the same transaction");
    other.evidence = true;
    *member(&mut changed, pack::ROWS) = serde_json::to_vec(&rows).unwrap();
    let mut manifest: Manifest =
        serde_json::from_slice(member(&mut changed, pack::MANIFEST)).unwrap();
    for count in &mut manifest.evidence {
        if count.table == "audit_log" {
            count.rows += 1;
        }
    }
    *member(&mut changed, pack::MANIFEST) = serde_json::to_vec(&manifest).unwrap();
    let again = resigned(changed, &secret(&pit));
    assert_fails(
        &check_pack(&again, &trust(&pit)),
        &["an evidence row of audit_log is not about incident 1"],
    );
}

#[test]
fn extreme_ids_and_counts_are_refused_without_a_panic() {
    // What a pack says is input: ids at the ends of the integers, re-signed, must be a verdict.
    let (pit, bytes) = packed();
    for id in [i64::MAX, i64::MIN, 0] {
        let mut changed = members(&bytes);
        let mut rows: Rows = serde_json::from_slice(member(&mut changed, pack::ROWS)).unwrap();
        for chain in &mut rows.chains {
            for segment in &mut chain.segments {
                for row in &mut segment.rows {
                    row.columns.insert("id".into(), serde_json::Value::from(id));
                }
            }
        }
        *member(&mut changed, pack::ROWS) = serde_json::to_vec(&rows).unwrap();
        let again = resigned(changed, &secret(&pit));
        assert_fails(&check_pack(&again, &trust(&pit)), &["does not follow"]);
    }
}

#[test]
fn every_single_byte_changed_anywhere_in_the_file_is_found() {
    // Members, headers, padding and the end: one byte in every 37 flipped in turn (a sample,
    // to keep the test quick; the positions fall in every part of the file).
    let (pit, bytes) = packed();
    let trust = trust(&pit);
    for at in (0..bytes.len()).step_by(37) {
        let mut changed = bytes.clone();
        changed[at] ^= 0x20;
        let report = check_pack(&changed, &trust);
        assert!(
            !report.verifies(),
            "byte {at} of {} changed unseen",
            bytes.len()
        );
    }
}
