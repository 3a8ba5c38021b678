//! What the desk's tests share: a real pit, a desk on it with its first administrator, and
//! passwords strong enough for the policy.

use pitwatch_recording::pit::PitConfig;
use pitwatch_store::Store;

use crate::live::Desk;
use crate::setup::DeskOptions;

/// The record at `db` as the desk opens it (signed with the key [`DeskOptions::demo`] keeps
/// beside it).
pub(crate) fn test_store(db: &std::path::Path) -> Store {
    DeskOptions::demo(db.to_owned())
        .installation
        .open(db)
        .expect("the store opens")
}

pub(crate) const ALICE: &str = "alice keeps the keys of 7 doors";

pub(crate) const BOB: &str = "bob watches every camera twice";

pub(crate) const SUP: &str = "supervisor of the long night shift";

/// A desk on a real pit (nothing simulated) whose first administrator `alice` is logged in.
pub(crate) fn real_desk(db: &std::path::Path) -> Desk {
    let (desk, updates) = Desk::start(DeskOptions {
        pit: real_pit(),
        ..DeskOptions::demo(db.to_owned())
    })
    .expect("the desk starts");
    drop(updates);
    desk.create_first_admin("alice", ALICE)
        .expect("the first admin");
    desk
}

/// A real pit of one TCP table whose device nobody runs (the link just keeps retrying).
pub(crate) fn real_pit() -> PitConfig {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    PitConfig::from_toml(&format!(
        "[site]\nname = \"Real\"\n[[table]]\nname = \"T1\"\ngame = \"baccarat\"\n\
             rules = \"nz-baccarat\"\ndevice = {{ protocol = \"angel-eye\" }}\n\
             link = {{ kind = \"tcp\", address = \"127.0.0.1:{port}\" }}\n"
    ))
    .expect("a pit definition")
}

/// The demo's handover with `note`: signed off by the demo supervisor, accepted by the second.
pub(crate) fn handover(note: &str) -> pitwatch_api::dto::SignOffRequest {
    pitwatch_api::dto::SignOffRequest {
        note: note.to_owned(),
        password: crate::setup::DEMO_PASSWORD.to_owned(),
        incoming: crate::setup::DEMO_INCOMING_USER.to_owned(),
        incoming_password: crate::setup::DEMO_INCOMING_PASSWORD.to_owned(),
    }
}
