// Generated from the Rust DTOs in crates/pitwatch-api (src/dto.rs and src/games/).
// Do not edit: run `make bindings` after changing them.

export type PitOverview = { 
/**
 * The site's name.
 */
site: string, 
/**
 * The site's time zone (an IANA name such as `Pacific/Auckland`, the pit definition's
 * `site.time_zone`, checked on load), in which the window shows every time as the reports
 * print them; none: UTC.
 */
timeZone: string | null, 
/**
 * Whether the tables are the simulated demo pit.
 */
demo: boolean, 
/**
 * The demo supervisor's credentials, shown on the login screen of the demo pit only.
 */
demoLogin: DemoLogin | null, 
/**
 * The user logged in at this workstation, if any.
 */
session: Session | null, 
/**
 * The tables, in the pit definition's order.
 */
tables: Array<TableTile>, 
/**
 * The record: where it is, who signs it, and what is wrong with it if anything.
 */
record: RecordStatus, 
/**
 * Seconds without a key or a pointer movement after which the window locks (0: never).
 */
idleLockSeconds: number, 
/**
 * Whether the logged-in user muted the alarm's sound (never while nobody is logged in).
 */
alarmMuted: boolean, 
/**
 * The pit definition's file (an administrator reloads it from the window); none for the
 * built-in demo pit.
 */
pitFile: string | null, 
/**
 * The program's version and build, as every report's footer prints them (About).
 */
build: BuildInfo, };

export type BuildInfo = { 
/**
 * The version (`0.1.0`).
 */
version: string, 
/**
 * The commit (12 hex digits), if the build knew it.
 */
commit: string | null, 
/**
 * As a report prints it: `Pitwatch 0.1.0 (build 6929b7d1c2e3)`.
 */
label: string, };

export type RecordStatus = { 
/**
 * The database file recording goes to (a new segment after a record failed verification).
 */
path: string, 
/**
 * The record's id (hex), once it has one.
 */
recordId: string | null, 
/**
 * The fingerprint of the installation's signing key, which every checkpoint is signed with
 * and every report prints.
 */
keyFingerprint: string | null, 
/**
 * The latest signed checkpoint, as printed in reports (`pitwatch-checkpoint:1:…`).
 */
latestCheckpoint: string | null, 
/**
 * The checkpoint journals that witness the record.
 */
journals: Array<string>, 
/**
 * What is wrong with the record or its witnesses, most serious first; each stays until
 * what caused it is dealt with.
 */
alerts: Array<RecordAlert>, 
/**
 * Replication to the central database, when the pit definition names one.
 */
replication: ReplicationState | null, };

export type ReplicationState = { 
/**
 * The central database's site and this workstation (`site/workstation`).
 */
workstation: string, 
/**
 * Whether the last attempt reached the server.
 */
connected: boolean, 
/**
 * Why the last attempt failed, if it did (the URL's password never shown).
 */
error: string | null, 
/**
 * Rows the server still lacks.
 */
rowsBehind: number, 
/**
 * How far behind the server is, in seconds: record time not yet delivered, or how long the
 * link has been down, whichever is more.
 */
secondsBehind: number, 
/**
 * The threshold past which replication is an alert, seconds.
 */
alertAfterS: number, 
/**
 * Rows the outbox refused to send (a record changed after replication), once each.
 */
refused: Array<string>, 
/**
 * A server found holding less than was delivered to it before (restored from a backup).
 */
behind: Array<string>, };

export type RecordAlert = { 
/**
 * How serious: `critical` (the record failed verification) or `high` (a witness cannot be
 * written).
 */
severity: Severity, 
/**
 * What is wrong and what Pitwatch did about it, for people.
 */
message: string, };

export type UserRow = { 
/**
 * The user's name.
 */
name: string, 
/**
 * Their role (`supervisor`, `surveillance`, `admin`, `inspector`).
 */
role: string, 
/**
 * When they were added (RFC 3339, as the record holds it).
 */
createdAt: string, 
/**
 * Whether they may log in (a deactivated user stays on record).
 */
active: boolean, 
/**
 * When their password was set (RFC 3339), as the audit log holds it: on being added, by
 * an administrator's reset or by their own change.
 */
passwordSetAt: string | null, 
/**
 * When they last logged in (RFC 3339), if ever.
 */
lastLoginAt: string | null, 
/**
 * What their role may do (the commands' names, as audited): the access listing.
 */
may: Array<string>, };

export type AuditRow = { 
/**
 * The row's number in the audit chain.
 */
id: number, 
/**
 * When (RFC 3339).
 */
at: string, 
/**
 * Who (for a failed login: the name that was tried, as typed).
 */
user: string, 
/**
 * What (`login.failed`, `access.forbidden`, `incident.resolve`, …).
 */
action: string, 
/**
 * About what.
 */
subject: string, 
/**
 * The details as recorded (for logins and refusals: JSON with the workstation).
 */
detail: string, };

export type AccessUser = { 
/**
 * The user's name.
 */
name: string, 
/**
 * Their role (`supervisor`, `surveillance`, `admin`, `inspector`).
 */
role: string, 
/**
 * `active`, `disabled` (deactivated), `locked` (too many failed logins, until
 * `locked_until`) or `password_expired` (must choose a new one before logging in).
 */
status: string, 
/**
 * When a lock ends (RFC 3339), if the account is locked.
 */
lockedUntil: string | null, 
/**
 * When they were added (RFC 3339).
 */
createdAt: string, 
/**
 * When their password was set (RFC 3339), if the audit log says.
 */
passwordSetAt: string | null, 
/**
 * Whole days since their password was set.
 */
passwordAgeDays: number | null, 
/**
 * When they last logged in (RFC 3339), if ever.
 */
lastLoginAt: string | null, 
/**
 * The workstation holding their live session, if they hold one (one at a time).
 */
sessionAt: string | null, 
/**
 * What their role may do (the commands' names, as audited).
 */
may: Array<string>, };

export type RoleAccess = { 
/**
 * The role's name.
 */
role: string, 
/**
 * The commands it allows (names as audited).
 */
may: Array<string>, };

export type AccessListing = { 
/**
 * When it was read (RFC 3339).
 */
at: string, 
/**
 * Every user, by name.
 */
users: Array<AccessUser>, 
/**
 * Every role, with what it allows.
 */
roles: Array<RoleAccess>, 
/**
 * SHA-256 (hex) of what the listing grants (each user's name, role, status, when added and
 * when their password was set, and every role's commands; not logins or sessions): what
 * an access review signs.
 */
digest: string, };

export type ReviewRow = { 
/**
 * The audit row that holds it.
 */
id: number, 
/**
 * `access` or `log`.
 */
kind: string, 
/**
 * Who signed it.
 */
reviewer: string, 
/**
 * Their role when they signed.
 */
role: string, 
/**
 * Where.
 */
workstation: string, 
/**
 * When (RFC 3339).
 */
at: string, 
/**
 * The period reviewed, from (RFC 3339; a log review's).
 */
from: string | null, 
/**
 * The period reviewed, to (RFC 3339, exclusive; a log review's).
 */
to: string | null, 
/**
 * The audit rows in the period (a log review's).
 */
rows: number | null, 
/**
 * The digest signed: the listing's, or that of the audit rows of the period.
 */
digest: string, 
/**
 * What the reviewer wrote.
 */
comment: string, };

export type ReviewStatus = { 
/**
 * The last access review, if any.
 */
lastAccess: ReviewRow | null, 
/**
 * Days between access reviews.
 */
accessEveryDays: number, 
/**
 * When the next access review is due (RFC 3339): the last's time plus the period, or now
 * when there has been none.
 */
accessDue: string, 
/**
 * The last log review, if any.
 */
lastLog: ReviewRow | null, 
/**
 * Days between log reviews.
 */
logEveryDays: number, 
/**
 * When the next log review is due (RFC 3339).
 */
logDue: string, 
/**
 * Where the next log review should start: the end of the last one's period (RFC 3339), or
 * null when there has been none.
 */
logFrom: string | null, 
/**
 * The reviews overdue (empty when none is).
 */
alerts: Array<ReviewAlert>, };

export type ReviewAlert = { 
/**
 * `access` (for administrators and inspectors) or `log` (for surveillance and inspectors).
 */
kind: string, 
/**
 * What is overdue since when, in words.
 */
message: string, };

export type AccessReviewRequest = { 
/**
 * The digest of the listing as read ([`AccessListing::digest`]); refused when the listing
 * has changed since.
 */
digest: string, 
/**
 * What the reviewer found (required).
 */
comment: string, };

export type LogReviewRequest = { 
/**
 * The period's start (RFC 3339).
 */
from: string, 
/**
 * The period's end (RFC 3339, exclusive; not after now).
 */
to: string, 
/**
 * What the reviewer found (required).
 */
comment: string, };

export type TableTile = { 
/**
 * The table's name, unique in the pit.
 */
name: string, 
/**
 * The game dealt there.
 */
game: Game, 
/**
 * The rule book it is checked against.
 */
ruleBook: string, 
/**
 * The protocol its device speaks.
 */
protocol: Protocol, 
/**
 * How the device is reached, for people (`/dev/ttyUSB0 @ 4800 baud`, `tcp host:port`).
 */
link: string, 
/**
 * The device link's state.
 */
status: LinkStatus, 
/**
 * What the link last said (the port connected to, why it dropped, the device's error).
 */
statusDetail: string, 
/**
 * Every device of the table, the main one (whose protocol, link and state are above) first:
 * a shoe and the shuffler beside it, say.
 */
devices: Array<DeviceTile>, 
/**
 * When the last frame arrived (Unix milliseconds), if any did since start-up.
 */
lastFrameMs: number | null, 
/**
 * Frames the codec accepted since start-up.
 */
framesAccepted: number, 
/**
 * Frames the codec rejected since start-up.
 */
framesRejected: number, 
/**
 * When the host received the latest table event on the tile (the event's `at`, Unix
 * milliseconds), if any arrived since start-up: the front end measures from it how long a
 * live event takes to reach the screen.
 */
lastEventAtMs: number | null, 
/**
 * When the host received the oldest event this copy of the tile is the first to carry to
 * the window (Unix milliseconds; `None` when it carries no new event): events wait for the
 * desk's next flush, so the oldest one waited longest and its lag is the update's worst.
 */
oldestUnsentAtMs: number | null, 
/**
 * The shoe being dealt (1-based in the table's record; 0 before the first shuffle seen).
 */
shoe: number, 
/**
 * Cards drawn from this shoe (burn cards included) since its shuffle.
 */
cardsDealt: number, 
/**
 * Cards left in the shoe, when the shoe's size is known.
 */
cardsLeft: number | null, 
/**
 * Whether the cutting card has come out (the next round is the last).
 */
cuttingCardOut: boolean, 
/**
 * What is on the table, in the game's own terms.
 */
play: TablePlay, 
/**
 * Incidents not yet resolved at this table, by severity.
 */
incidents: SeverityCounts, 
/**
 * How well the shoe before this one was shuffled, judged when this one started (absent
 * before a shoe has ended on record, and with a continuous shuffler).
 */
lastShuffle: ShuffleQuality | null, 
/**
 * The steps of preparing the cards by hand that the rule book requires before each load, in
 * order (Pontoon 6.4: `chemmy`, `stacking`, `riffle`), which the console offers; empty when
 * the book requires none.
 */
shuffleSteps: Array<string>, 
/**
 * A liveness alarm standing on one of its devices (the main device's first): what the
 * tile shows instead of live play, with what it shows greyed as stale.
 */
alarm: DeviceAlarmView | null, 
/**
 * Why the table does not run, when its section of the pit definition is wrong: it is shown
 * disabled, with its problems, while the other tables run.
 */
disabled: DisabledView | null, };

export type DisabledView = { 
/**
 * The line its `[[table]]` section starts on.
 */
line: number, 
/**
 * Everything wrong with it, each saying what is accepted.
 */
problems: Array<string>, };

export type Game = "baccarat" | "blackjack" | "pontoon" | "poker";

export type Protocol = "angel-eye" | "barcode" | "pitwatch";

export type LinkStatus = "not_monitored" | "connected" | "reconnecting" | "error";

export type DeviceTile = { 
/**
 * What the device is at the table.
 */
role: DeviceRole, 
/**
 * The protocol it speaks.
 */
protocol: Protocol, 
/**
 * How it is reached, for people.
 */
link: string, 
/**
 * Its link's state.
 */
status: LinkStatus, 
/**
 * What its link last said.
 */
statusDetail: string, 
/**
 * A shuffler's last completed shuffle, with its deck check, if one arrived since start-up.
 */
lastCheck: DeckCheckView | null, 
/**
 * A shuffler is shuffling: it started a shuffle (`shuffle_started`) not completed yet.
 */
shuffling: boolean, 
/**
 * A shuffler's counters as it last reported them (`shuffler_counters`), since start-up.
 */
counters: ShufflerCountersView | null, 
/**
 * The device's liveness alarm standing (offline, never connected, silent), if any.
 */
alarm: DeviceAlarmView | null, 
/**
 * What the device says it is and the USB adapter it is reached through, as last known.
 */
identity: DeviceIdentityView | null, };

export type DeviceIdentityView = { 
/**
 * Maker.
 */
make: string, 
/**
 * Model.
 */
model: string, 
/**
 * Serial number.
 */
serial: string, 
/**
 * Firmware version.
 */
firmware: string, 
/**
 * When it last said so (RFC 3339), if it has.
 */
saidAt: string | null, 
/**
 * Its USB adapter: product (or `vid:pid`), serial number and port, for people; empty when
 * it is not reached through one.
 */
usb: string, };

export type DeviceRole = "shoe" | "shuffler" | "console";

export type DeckCheckView = { 
/**
 * Decks shuffled, when said.
 */
decks: number | null, 
/**
 * Cards counted.
 */
cards: number, 
/**
 * Cards expected.
 */
expected: number, 
/**
 * Cards missing.
 */
missing: number, 
/**
 * Cards found more often than the decks hold.
 */
extra: number, 
/**
 * Cards of no deck loaded.
 */
foreign: number, 
/**
 * Whether the check passed (the count right and nothing missing, extra or foreign).
 */
passed: boolean, 
/**
 * When the host received it (Unix milliseconds).
 */
atMs: number | null, 
/**
 * Its `seq` in the table's stream.
 */
seq: number, };

export type ShufflerCountersView = { 
/**
 * Shuffles (cycles) done.
 */
cycles: number, 
/**
 * Card-recognition errors logged, when counted.
 */
recognitionErrors: number | null, 
/**
 * Malfunctions logged, when counted.
 */
malfunctions: number | null, };

export type DeviceAlarmView = { 
/**
 * What kind.
 */
kind: DeviceAlarmKind, 
/**
 * Since when the device is gone (Unix milliseconds): the monitor's start, the
 * disconnection, or the last bytes received.
 */
sinceMs: number, 
/**
 * Which of the table's devices (0: its main device).
 */
device: number, 
/**
 * The incident recorded for it, once on record.
 */
incident: number | null, };

export type DeviceAlarmKind = "never_connected" | "offline" | "silent";

export type TablePlay = { "game": "baccarat" } & BaccaratPlay | { "game": "blackjack" } & BlackjackPlay | { "game": "poker" } & PokerPlay;

export type BaccaratPlay = { 
/**
 * Whether a burn is due in this shoe at all (`false`: the rule book has none, the shoe was
 * joined part-way or cut off by a restart, or the cards were replaced).
 */
burnDue: boolean, 
/**
 * Whether the burn has been done in this shoe.
 */
burnDone: boolean, 
/**
 * The round being dealt, or the last one dealt.
 */
current: LiveRound, 
/**
 * Every round completed in this shoe, oldest first (the roads are drawn from these).
 */
rounds: Array<RoundResult>, };

export type BlackjackPlay = { 
/**
 * The round being dealt (`complete: false`), else the last one completed in this shoe.
 */
current: BlackjackRound | null, 
/**
 * The rounds completed in this shoe, oldest first: at most [`BLACKJACK_ROUNDS_KEPT`].
 */
rounds: Array<BlackjackRound>, };

export type BlackjackRound = { 
/**
 * The shoe.
 */
shoe: number, 
/**
 * The round, 1-based within the shoe.
 */
round: number, 
/**
 * The dealer's cards, as codes like `TD` (`null`: unreadable).
 */
dealer: Array<string | null>, 
/**
 * The dealer's total, if known.
 */
dealerTotal: number | null, 
/**
 * Whether the dealer's total is soft (an ace counted 11).
 */
dealerSoft: boolean, 
/**
 * Whether the dealer's first two cards are a blackjack.
 */
dealerBlackjack: boolean, 
/**
 * The boxes in play, by number.
 */
boxes: Array<BlackjackBox>, 
/**
 * Whether the round is settled (every hand and the dealer finished by the rules).
 */
complete: boolean, 
/**
 * `seq` of the round's first event.
 */
firstSeq: number, 
/**
 * `seq` of its last card.
 */
lastSeq: number, };

export type BlackjackBox = { 
/**
 * The box number.
 */
number: number, 
/**
 * Its hands (more than one after a split).
 */
hands: Array<BlackjackHand>, 
/**
 * Its side bets as the cards settle them (Super Sevens, insurance).
 */
sideBets: Array<SideBetResult>, };

export type BlackjackHand = { 
/**
 * The cards in deal order.
 */
cards: Array<string | null>, 
/**
 * The total, if known.
 */
total: number | null, 
/**
 * Whether an ace counts 11.
 */
soft: boolean, 
/**
 * Whether the hand doubled.
 */
doubled: boolean, 
/**
 * Whether it came from a split.
 */
split: boolean, 
/**
 * The outcome, once settled.
 */
outcome: HandOutcome | null, 
/**
 * What it won or lost in units of the box's wager, signed (`+1.5`, `-2`, `0`), once settled.
 */
pays: string | null, 
/**
 * The rule that settled it (`5.1(b)`, or the bonus paid).
 */
rule: string | null, };

export type HandOutcome = "blackjack" | "win" | "lose" | "push" | "surrender";

export type SideBetResult = { 
/**
 * `super_sevens` or `insurance`.
 */
bet: string, 
/**
 * Super Sevens: sevens in a row from the box's first card.
 */
sevens: number | null, 
/**
 * Super Sevens: whether they are of one suit.
 */
suited: boolean | null, 
/**
 * What it won or lost per unit staked, signed, if known.
 */
pays: string | null, };

export type PokerPlay = { 
/**
 * The variant dealt (`texas_holdem`).
 */
variant: string, 
/**
 * The hand being dealt (`complete: false`), else the last one closed.
 */
current: PokerHand | null, 
/**
 * The last hands closed, oldest first: at most [`POKER_HANDS_KEPT`].
 */
hands: Array<PokerHand>, };

export type PokerHand = { 
/**
 * The variant's id (`texas_holdem`).
 */
variant: string, 
/**
 * The hand's number at the table, from 1.
 */
hand: number, 
/**
 * The deck (shuffle) it was dealt from.
 */
shoe: number, 
/**
 * Its place among that deck's hands (1 unless a hand was dealt without a shuffle).
 */
round: number, 
/**
 * The seats dealt to or acting.
 */
seats: Array<PokerSeat>, 
/**
 * The misdeal's reason letter (`h`), if the hand is a misdeal.
 */
misdeal: string | null, 
/**
 * Misdeals and rulings a supervisor declared in the hand.
 */
declared: Array<DeclaredMisdeal>, 
/**
 * `seq` at which substantial action was reached, if it was.
 */
substantialActionSeq: number | null, 
/**
 * Whether the deck's check before the hand failed.
 */
defectiveDeck: boolean, 
/**
 * Whether the hand is closed (false while it is dealt, or when the stream was cut off).
 */
complete: boolean, 
/**
 * `seq` of the hand's first event.
 */
firstSeq: number, 
/**
 * `seq` of its last event.
 */
lastSeq: number, };

export type PokerSeat = { 
/**
 * The seat, from 1.
 */
seat: number, 
/**
 * Cards dealt to it.
 */
cards: number, 
/**
 * Of those, face up.
 */
faceUp: number, 
/**
 * Whether the player acted (a blind is not acting).
 */
acted: boolean, 
/**
 * Whether the player folded.
 */
folded: boolean, 
/**
 * The seat's own ruling where the misdeal rule says there is no misdeal (`dead_hand` or
 * `void_hand`: (f)(i), (f)(ii), (g)), when it has one.
 */
ruled: string | null, };

export type DeclaredMisdeal = { 
/**
 * The reason's letter (`a` to `l`).
 */
reason: string, 
/**
 * The seats affected.
 */
seats: Array<number>, 
/**
 * `misdeal`, `dead_hand`, `void_hand` or `played_out`.
 */
ruling: string, 
/**
 * Its `seq`.
 */
seq: number, };

export type GameRoundResult = { "game": "baccarat" } & RoundResult | { "game": "blackjack" } & BlackjackRound | { "game": "poker" } & PokerHand;

export type LiveRound = { 
/**
 * The round's number in the shoe (the one being dealt, or the last one).
 */
round: number, 
/**
 * The Player's cards in deal order, as codes like `TD` (`null`: unreadable).
 */
player: Array<string | null>, 
/**
 * The Banker's cards in deal order.
 */
banker: Array<string | null>, 
/**
 * The result, once the round is complete.
 */
result: RoundResult | null, };

export type RoundResult = { 
/**
 * The shoe.
 */
shoe: number, 
/**
 * The round, 1-based within the shoe.
 */
round: number, 
/**
 * The Player's cards, as codes like `TD` (`null`: unreadable).
 */
player: Array<string | null>, 
/**
 * The Banker's cards.
 */
banker: Array<string | null>, 
/**
 * The Player's points, when every card was read.
 */
playerTotal: number | null, 
/**
 * The Banker's points.
 */
bankerTotal: number | null, 
/**
 * Who won, when known.
 */
outcome: RoundOutcome | null, 
/**
 * Whether the Player's first two cards are a pair.
 */
playerPair: boolean, 
/**
 * Whether the Banker's first two cards are a pair.
 */
bankerPair: boolean, 
/**
 * `seq` of the round's first card.
 */
firstSeq: number, 
/**
 * `seq` of the round's last card.
 */
lastSeq: number, };

export type RoundOutcome = "player" | "banker" | "tie" | "void";

export type SeverityCounts = { 
/**
 * Critical.
 */
critical: number, 
/**
 * High.
 */
high: number, 
/**
 * Medium.
 */
medium: number, 
/**
 * Low.
 */
low: number, };

export type Severity = "low" | "medium" | "high" | "critical";

export type IncidentStatus = "open" | "acknowledged" | "resolved";

export type IncidentRow = { 
/**
 * Its id.
 */
id: number, 
/**
 * The table.
 */
table: string, 
/**
 * The irregularity's stable code.
 */
code: string, 
/**
 * Its severity.
 */
severity: Severity, 
/**
 * The rule cited.
 */
rule: string, 
/**
 * The shoe, when in one.
 */
shoe: number | null, 
/**
 * The round, when in one.
 */
round: number | null, 
/**
 * The event that raised it.
 */
seq: number, 
/**
 * What happened, for a supervisor.
 */
message: string, 
/**
 * When it was opened (RFC 3339).
 */
openedAt: string, 
/**
 * Where it is in the workflow.
 */
status: IncidentStatus, };

export type IncidentQuery = { 
/**
 * Only this table.
 */
table: string | null, 
/**
 * Only this status.
 */
status: IncidentStatus | null, 
/**
 * Only incidents not yet resolved (open or acknowledged).
 */
unresolved: boolean, 
/**
 * Only this severity.
 */
severity: Severity | null, 
/**
 * Only this irregularity code (`BURN_COUNT_MISMATCH`).
 */
code: string | null, 
/**
 * Only opened at or after this time (RFC 3339).
 */
since: string | null, 
/**
 * Only opened before this time (RFC 3339).
 */
until: string | null, 
/**
 * The page after this cursor: only incidents with an id below it (the `next` of the page
 * before); none for the first page.
 */
before: number | null, 
/**
 * At most this many incidents (1 to 1,000; [`DEFAULT_PAGE`] if none).
 */
limit: number | null, };

export type IncidentPage = { 
/**
 * The incidents, newest first.
 */
incidents: Array<IncidentRow>, 
/**
 * The cursor for the next (older) page, when there is one.
 */
next: number | null, 
/**
 * How many incidents match the query in all.
 */
total: number, };

export type ShoeRow = { 
/**
 * The shoe, 1-based in the table's record.
 */
shoe: number, 
/**
 * When its first event happened (RFC 3339), if known.
 */
startedAt: string | null, 
/**
 * When its last event so far happened, if known.
 */
endedAt: string | null, 
/**
 * Rounds recorded in it.
 */
rounds: number, 
/**
 * Incidents opened in it.
 */
incidents: number, 
/**
 * How well its shuffle mixed the cards (absent with a continuous shuffler).
 */
shuffle: ShuffleQuality | null, };

export type ShuffleQuality = { 
/**
 * The verdict.
 */
verdict: ShuffleVerdict, 
/**
 * A short label: "well mixed", "weak: consistent with 3 riffles", "suspect: a block of 20
 * cards kept", "not compared".
 */
label: string, 
/**
 * Whether the shoe is still being dealt (statistics so far; it is judged, and may raise an
 * incident, when the next shoe starts).
 */
provisional: boolean, 
/**
 * The statistics and p-values, for people.
 */
detail: string, };

export type ShuffleVerdict = "not_compared" | "well_mixed" | "weak" | "suspect";

export type ShoePage = { 
/**
 * The table.
 */
table: string, 
/**
 * The shoes, newest first.
 */
shoes: Array<ShoeRow>, 
/**
 * The cursor for older shoes (pass it as `before`), when there are any.
 */
next: number | null, };

export type IncidentDetail = { 
/**
 * The incident.
 */
incident: IncidentRow, 
/**
 * The rule book the table is checked against.
 */
ruleBook: string, 
/**
 * The texts of the rules cited, as the rule book words them.
 */
ruleTexts: Array<RuleText>, 
/**
 * The events that are evidence, and the round's other events, in order.
 */
timeline: Array<TimelineEntry>, 
/**
 * The round it happened in, when it completed, in its game's terms.
 */
round: GameRoundResult | null, 
/**
 * Every workflow step, oldest first.
 */
history: Array<HistoryEntry>, };

export type RuleText = { 
/**
 * The rule's number as the book gives it.
 */
number: string, 
/**
 * Its text.
 */
text: string, };

export type TimelineEntry = { 
/**
 * Its sequence number in the table's stream.
 */
seq: number, 
/**
 * When it happened (RFC 3339), if known.
 */
at: string | null, 
/**
 * What happened, for people.
 */
what: string, 
/**
 * Whether the irregularity cites it as evidence.
 */
evidence: boolean, 
/**
 * Whether a supervisor entered it at the console (not a device frame).
 */
console: boolean, 
/**
 * The device frame that carried it, as received: printable ASCII as is, other bytes as
 * `<hex>` (none for a console event).
 */
frame: string | null, };

export type HistoryEntry = { 
/**
 * When (RFC 3339).
 */
at: string, 
/**
 * Who; none when the engine opened it.
 */
user: string | null, 
/**
 * `opened`, `acknowledged`, `resolved`, `reopened`, `note`, or `device back` (a device
 * liveness incident's device back, with how long it was gone).
 */
what: string, 
/**
 * The note, the resolution, or why it was reopened.
 */
text: string | null, };

export type Session = { 
/**
 * The user's name.
 */
user: string, 
/**
 * Their role (`supervisor`, `surveillance`, `admin`).
 */
role: string, };

export type DemoLogin = { 
/**
 * The demo supervisor's name.
 */
user: string, 
/**
 * The demo supervisor's password.
 */
password: string, 
/**
 * The demo's second supervisor, who accepts a shift's handover.
 */
incomingUser: string, 
/**
 * Their password.
 */
incomingPassword: string, 
/**
 * The demo's administrator, who sets up tables and devices and manages users.
 */
adminUser: string, 
/**
 * Their password.
 */
adminPassword: string, };

export type ConsoleEntry = { "kind": "card_exposed", 
/**
 * The card, if it was seen.
 */
card: string | null, 
/**
 * `cutting`, `loading` or `dealing`.
 */
during: string, } | { "kind": "cut", 
/**
 * The cut position.
 */
position: number, } | { "kind": "cards_replaced" } | { "kind": "table_vacant" } | { "kind": "shuffle_step", 
/**
 * The step.
 */
step: string, } | { "kind": "misdeal", 
/**
 * The book's lettered reason, `a` to `l`.
 */
reason: string, 
/**
 * The seats affected (empty: the whole hand).
 */
seats: Array<number>, 
/**
 * `misdeal`, `dead_hand`, `void_hand` or `played_out`.
 */
ruling: string, } | { "kind": "dealer_signed_in", 
/**
 * The dealer's name, as the pit writes it (not blank, at most 80 characters).
 */
dealer: string, } | { "kind": "dealer_signed_out", 
/**
 * The dealer's name.
 */
dealer: string, };

export type PitUpdate = { "type": "table", 
/**
 * The tile as it is now (boxed: it is much larger than the other updates).
 */
table: TableTile, } | { "type": "incident_raised", 
/**
 * The new incident.
 */
incident: IncidentRow, } | { "type": "incident_changed", 
/**
 * The incident as it is now.
 */
incident: IncidentRow, } | { "type": "record", 
/**
 * The record as it is now.
 */
record: RecordStatus, } | { "type": "recording", 
/**
 * The state now.
 */
status: RecordingStatus, } | { "type": "tables", 
/**
 * The tiles now.
 */
tables: Array<TableTile>, };

export type RecordingStatus = { 
/**
 * Whether recording is degraded: what arrives waits in the spool because the database
 * cannot be written (or the backlog is still being written).
 */
degraded: boolean, 
/**
 * What is wrong (or, once recovered, what was), for people.
 */
reason: string, 
/**
 * Since when (Unix milliseconds).
 */
sinceMs: number | null, 
/**
 * Bytes waiting to be written.
 */
backlogBytes: number, 
/**
 * Inputs (reads, connection changes) waiting to be written.
 */
backlogInputs: number, 
/**
 * Bytes dropped because the spool was full (each loss is recorded as an incident).
 */
droppedBytes: number, };

export type PitReload = { 
/**
 * The file read.
 */
file: string, 
/**
 * Tables started that were not running.
 */
added: Array<string>, 
/**
 * Tables stopped because the file no longer has them.
 */
removed: Array<string>, 
/**
 * Tables stopped because their section is now wrong (shown disabled with the problems).
 */
disabled: Array<string>, 
/**
 * Tables stopped and started again, each with what differs (`game`, `rules`, `devices`…).
 */
changed: Array<ChangedTableView>, 
/**
 * How many running tables the file defines alike (not touched).
 */
unchanged: number, 
/**
 * Settings of the whole pit that differ and apply only at the next start.
 */
atRestart: Array<string>, 
/**
 * Why a table the file asks for could not be started (it stays stopped).
 */
problems: Array<string>, };

export type ChangedTableView = { 
/**
 * The table's name.
 */
name: string, 
/**
 * The fields of its section that differ.
 */
what: Array<string>, };

export type SerialPortView = { 
/**
 * The path to open (`/dev/ttyUSB0`).
 */
path: string, 
/**
 * `usb`, `pci`, `bluetooth` or `unknown` (an on-board port, a pseudo-terminal).
 */
kind: string, 
/**
 * A USB adapter's vendor and product ids (`0403:6001`), its maker, product and serial
 * number, in words; empty for other ports.
 */
usb: string, 
/**
 * The same port's name that stays when its adapter is plugged in again under another
 * (`/dev/serial/by-id/…`), or empty: the one to choose for a table's device.
 */
stablePath: string, };

export type TableDraft = { 
/**
 * Its name (unique in the pit).
 */
name: string, 
/**
 * `baccarat`, `blackjack`, `pontoon` or `poker`.
 */
game: string, 
/**
 * Its rule book (`nz-baccarat`, or a file's path).
 */
rules: string, 
/**
 * Decks in its shoe, for a shoe that does not report them (none: the book's default).
 */
decks?: number, 
/**
 * The variant dealt at a poker table (`texas_holdem`…; none: the book's default).
 */
variant?: string, 
/**
 * What its shoe speaks.
 */
protocol: Protocol, 
/**
 * How the shoe is reached: a serial port's path, or a device server's `host:port`.
 */
link: LinkDraft, 
/**
 * How an automatic shuffler beside the shoe is reached, when the table has one (it speaks
 * the Pitwatch protocol as a shuffler).
 */
shuffler?: LinkDraft, };

export type BookView = { 
/**
 * The reference asked for (`nz-blackjack;decks=6`, a file).
 */
rules: string, 
/**
 * The `[book]` header's fields (id, jurisdiction, game, title, gazette, effective…).
 */
header: Array<BookFieldView>, 
/**
 * Every other section, in the book's order.
 */
sections: Array<BookSectionView>, 
/**
 * The variants a table may deal from the book, in its order (none: one way of dealing).
 */
variants: Array<BookVariantView>, 
/**
 * The variant dealt when a table does not say, where the book has variants.
 */
defaultVariant: string | null, 
/**
 * Whether a table may give the book another deck count (`decks`).
 */
decksChoosable: boolean, };

export type DeviceHealthBoard = { 
/**
 * The period's start (RFC 3339).
 */
from: string, 
/**
 * Its end.
 */
to: string, 
/**
 * Every device that served a table in it, by table then by when it first connected.
 */
rows: Array<DeviceHealthView>, };

export type DeviceHealthView = { 
/**
 * The table.
 */
table: string, 
/**
 * The protocol it spoke (`angel-eye`, `barcode`, `pitwatch`…).
 */
protocol: string, 
/**
 * What it says it is ("Pitwatch Simulated shuffler", from its own report), else what its
 * link is (a USB adapter's maker and product); empty when nothing says.
 */
device: string, 
/**
 * Its serial number, if known (its own, else its USB adapter's).
 */
serial: string, 
/**
 * Its firmware, if known.
 */
firmware: string, 
/**
 * The link it was reached through when the device named itself ("FTDI FT232R USB UART
 * serial number A1"); empty when the link is all that is known or nothing is.
 */
via: string, 
/**
 * The port or address it was reached on.
 */
port: string, 
/**
 * Its connections in the period.
 */
sessions: number, 
/**
 * When it first connected (RFC 3339).
 */
firstAt: string, 
/**
 * When its last connection ended, or none while it is connected.
 */
lastEndAt: string | null, 
/**
 * How long it was connected within the period (ms).
 */
connectedMs: number, 
/**
 * How long, within the period, it was not (ms): from its first connection on.
 */
offlineMs: number, 
/**
 * Frames accepted.
 */
framesAccepted: number, 
/**
 * Frames rejected.
 */
framesRejected: number, 
/**
 * Cards it sent again (taken when the first report was lost, or refused as already taken).
 */
retransmissions: number, 
/**
 * Errors it reported.
 */
errors: number, 
/**
 * Their codes, each once.
 */
errorCodes: Array<string>, 
/**
 * How it compares with the other devices of its protocol, when it stands out ("rejects 5.0%
 * of its frames; its kind's median is 0.4%").
 */
standsOut: Array<string>, };

export type BookFieldView = { 
/**
 * Its key (`gazette`).
 */
key: string, 
/**
 * Its text.
 */
value: string, };

export type BookSectionView = { 
/**
 * Its name as the book heads it.
 */
name: string, 
/**
 * Its settings, in the book's order.
 */
parameters: Array<BookParameterView>, };

export type BookVariantView = { 
/**
 * Its id (`seven_card_stud`).
 */
id: string, 
/**
 * Its name (`Seven Card Stud`).
 */
name: string, };

export type BookParameterView = { 
/**
 * Its key (`min_from_back`; in `cite`, an irregularity's code).
 */
key: string, 
/**
 * Its value as the book writes it (`20`, `"last_coup"`).
 */
value: string, 
/**
 * The rule it cites (`7.6`), if the book says.
 */
rule: string | null, 
/**
 * The book's note beside it.
 */
note: string, };

export type LinkDraft = { "kind": "serial", 
/**
 * The port's path.
 */
path: string, 
/**
 * Its baud rate.
 */
baud: number, 
/**
 * Its framing and flow control (none: 8 data bits, no parity, 1 stop bit, no flow
 * control).
 */
line?: SerialLine, } | { "kind": "tcp", 
/**
 * Its `host:port`.
 */
address: string, };

export type SerialLine = { 
/**
 * Data bits, 5 to 8.
 */
dataBits: number, 
/**
 * Parity.
 */
parity: LineParity, 
/**
 * Stop bits, 1 or 2.
 */
stopBits: number, 
/**
 * Flow control.
 */
flowControl: LineFlow, };

export type LineParity = "none" | "odd" | "even";

export type LineFlow = "none" | "software" | "hardware";

export type LinkTestRequest = { 
/**
 * What the device speaks.
 */
protocol: Protocol, 
/**
 * How it is reached.
 */
link: LinkDraft, 
/**
 * Seconds to listen (1 to 30).
 */
seconds: number, };

export type LinkTestView = { 
/**
 * The link, in words (`serial /dev/ttyUSB0 9600 8N1`, `tcp 10.0.0.5:4001`).
 */
link: string, 
/**
 * Whether it opened.
 */
connected: boolean, 
/**
 * Why it did not open or dropped.
 */
problems: Array<string>, 
/**
 * Bytes read.
 */
bytes: number, 
/**
 * Frames accepted.
 */
accepted: number, 
/**
 * Frames (or runs of bytes) rejected.
 */
rejected: number, 
/**
 * The first frames, in order.
 */
frames: Array<TestFrameView>, 
/**
 * How long the test listened, in milliseconds.
 */
listenedMs: number, 
/**
 * The verdict in a sentence.
 */
verdict: string, };

export type TestFrameView = { 
/**
 * When it arrived (RFC 3339, UTC).
 */
at: string, 
/**
 * Whether the protocol accepted it.
 */
accepted: boolean, 
/**
 * Its events in words, or why it was rejected.
 */
text: string, 
/**
 * Its bytes for people: printable ASCII as is, anything else as `<hex>`.
 */
bytes: string, };

export type ShoeReplay = { 
/**
 * The table.
 */
table: string, 
/**
 * The rule book it was checked against.
 */
ruleBook: string, 
/**
 * The shoe replayed.
 */
shoe: number, 
/**
 * Whether the record verified intact: every hash chain (in full, or what was appended since
 * it was last verified in full, as `verify_detail` says).
 */
verified: boolean, 
/**
 * What verification checked and found, for people.
 */
verifyDetail: string, 
/**
 * Where re-decoding the recorded bytes did not give the events on record (empty when it did).
 */
divergences: Array<string>, 
/**
 * Every event of the shoe, in order, with the table as it was just after it.
 */
steps: Array<ReplayStep>, 
/**
 * How well its shuffle mixed the cards, against the shoes before it (absent with a
 * continuous shuffler).
 */
shuffle: ShuffleQuality | null, };

export type ReplayStep = { 
/**
 * The event's sequence number.
 */
seq: number, 
/**
 * When it happened (RFC 3339), if known.
 */
at: string | null, 
/**
 * What happened, for people.
 */
what: string, 
/**
 * Cards drawn from the shoe so far (burn cards included).
 */
cardsDealt: number, 
/**
 * Cards left in the shoe, when its size is known.
 */
cardsLeft: number | null, 
/**
 * Whether the cutting card has come out.
 */
cuttingCardOut: boolean, 
/**
 * The table just after the event, in the game's own terms.
 */
play: ReplayPlay, 
/**
 * The irregularities this event revealed (`code: message`).
 */
irregularities: Array<string>, };

export type ReplayPlay = { "game": "baccarat" } & BaccaratStep | { "game": "blackjack" } & BlackjackStep | { "game": "poker" } & PokerStep;

export type BaccaratStep = { 
/**
 * The round on the table (the one being dealt or just completed).
 */
round: number, 
/**
 * The Player's cards on the table.
 */
player: Array<string | null>, 
/**
 * The Banker's cards on the table.
 */
banker: Array<string | null>, 
/**
 * Whether a burn is due in this shoe at all.
 */
burnDue: boolean, 
/**
 * Whether the burn has been done.
 */
burnDone: boolean, 
/**
 * The round this event completed, if it did.
 */
completed: RoundResult | null, };

export type BlackjackStep = { 
/**
 * The round being dealt, if one is.
 */
round: BlackjackRound | null, 
/**
 * The round this event completed, if it did.
 */
completed: BlackjackRound | null, };

export type PokerStep = { 
/**
 * The hand being dealt, if one is.
 */
hand: PokerHand | null, 
/**
 * The hand this event closed, if it did.
 */
completed: PokerHand | null, };

export type ApiError = { 
/**
 * What kind of failure, for the UI to act on.
 */
code: ErrorCode, 
/**
 * What happened, in words a supervisor understands.
 */
message: string, };

export type ErrorCode = "invalid_input" | "not_found" | "internal" | "unauthorised" | "conflict" | "forbidden" | "password_expired";

export type ShiftQuery = { 
/**
 * The shift's start.
 */
from: string, 
/**
 * The shift's end.
 */
to: string, 
/**
 * Only this table.
 */
table: string | null, };

export type ShiftReportFile = { 
/**
 * Where the PDF was written.
 */
path: string, 
/**
 * How many pages it has.
 */
pages: number, };

export type EvidencePackFile = { 
/**
 * Where the pack was written.
 */
path: string, 
/**
 * The fingerprint of the key that signed it, which `pitwatch verify --pack` checks it
 * against.
 */
fingerprint: string, 
/**
 * Its size in bytes.
 */
bytes: number, };

export type SurveillanceLog = { 
/**
 * The camera or the recording reviewed (its reference).
 */
camera: string, 
/**
 * The time code in that recording.
 */
timeCode: string, 
/**
 * The disposition: what the footage showed and what was decided.
 */
disposition: string, 
/**
 * The employees involved, by name or badge (may be empty).
 */
employees: Array<string>, };

export type SignedOff = { 
/**
 * Who signed off.
 */
user: string, 
/**
 * When (RFC 3339).
 */
at: string, 
/**
 * The incoming supervisor who accepted the handover.
 */
acceptedBy: string, };

export type ResolutionKind = "confirmed" | "false_alarm" | "duplicate" | "other";

export type DeviceDown = { 
/**
 * The table.
 */
table: string, 
/**
 * What the device is at the table (`shoe`, `shuffler`, `console`).
 */
device: string, 
/**
 * Its link's state.
 */
status: LinkStatus, 
/**
 * What its link last said.
 */
detail: string, };

export type TableDown = { 
/**
 * The table.
 */
table: string, 
/**
 * `closed` (its last recorded state) or `disabled` (its section of the pit definition is
 * wrong).
 */
state: string, 
/**
 * Why, in words.
 */
why: string, };

export type SignOffRow = { 
/**
 * Who signed off.
 */
user: string, 
/**
 * When (RFC 3339).
 */
at: string, 
/**
 * The period's start (RFC 3339).
 */
from: string, 
/**
 * The period's end (RFC 3339).
 */
to: string, 
/**
 * The table signed off, or every table.
 */
table: string | null, 
/**
 * What the outgoing supervisor wrote for the next shift.
 */
note: string, 
/**
 * Where it was signed off, when known.
 */
workstation: string | null, 
/**
 * The incoming supervisor who accepted the handover (sign-offs recorded before acceptance
 * was asked for have none).
 */
acceptedBy: string | null, 
/**
 * When they accepted it (RFC 3339).
 */
acceptedAt: string | null, };

export type HandoverSummary = { 
/**
 * Incidents not resolved now (open or acknowledged), by severity, at the tables signed off.
 */
openIncidents: SeverityCounts, 
/**
 * How many of them nobody has acknowledged.
 */
unacknowledged: number, 
/**
 * Devices not connected now.
 */
devicesDown: Array<DeviceDown>, 
/**
 * Tables closed or disabled now.
 */
tablesDown: Array<TableDown>, 
/**
 * Sign-offs on record at this workstation whose period overlaps this one: signing off
 * again is refused while there is one.
 */
signed: Array<SignOffRow>, };

export type SignOffRequest = { 
/**
 * What the next shift should know.
 */
note: string, 
/**
 * The password of the user signing off (checked as a login's is).
 */
password: string, 
/**
 * The incoming supervisor's user name (someone else).
 */
incoming: string, 
/**
 * The incoming supervisor's password (checked as a login's is).
 */
incomingPassword: string, };

export type CentralPit = { 
/**
 * The site (a casino).
 */
site: string, 
/**
 * The workstation (a pit's Pitwatch): `site/workstation` names it in every other command.
 */
workstation: string, 
/**
 * The site's name as its record gives it, if it does.
 */
siteName: string | null, 
/**
 * The latest checkpoint the local mirror stands at (0: nothing signed delivered yet).
 */
checkpoint: number, 
/**
 * When that checkpoint was made (record time, RFC 3339).
 */
checkpointAt: string | null, 
/**
 * When the workstation last delivered (the server's clock, RFC 3339), if ever.
 */
lastDelivery: string | null, 
/**
 * Rows the workstation still had to send at its last delivery.
 */
rowsBehind: number, 
/**
 * How far its latest checkpoint delivered was behind its record then (ms).
 */
msBehind: number, 
/**
 * Rows the central database refused from it (a record changed after replication).
 */
refused: number, 
/**
 * Why its copy could not be read or refreshed (then the tables are as last read), if so.
 */
problem: string | null, 
/**
 * Its incidents not yet resolved.
 */
openIncidents: number, 
/**
 * Its tables.
 */
tables: Array<CentralTable>, };

export type CentralTable = { 
/**
 * The table's name.
 */
name: string, 
/**
 * Its game (`baccarat`, `blackjack`, `pontoon`, `poker`).
 */
game: string, 
/**
 * Its rule book.
 */
ruleBook: string, 
/**
 * Its current (latest) shoe, 0 before the first.
 */
shoe: number, 
/**
 * Rounds completed in that shoe.
 */
rounds: number, 
/**
 * When its latest event happened (RFC 3339), if the record says.
 */
lastEventAt: string | null, 
/**
 * Its latest round's result, if it has one (Baccarat).
 */
lastResult: RoundResult | null, 
/**
 * Its incidents not yet resolved.
 */
openIncidents: number, };

export type CentralIncidents = { 
/**
 * The workstation (`site/workstation`).
 */
workstation: string, 
/**
 * Its incidents matching the query, as the workstation's own list gives them.
 */
page: IncidentPage, };

export type CentralIncidentDetail = { 
/**
 * The workstation whose record holds it (`site/workstation`).
 */
workstation: string, 
/**
 * Where its workflow (acknowledge, note, resolve) is done: the central copy takes no writes.
 */
workItAt: string, 
/**
 * The incident, its evidence and history, as the workstation shows it.
 */
detail: IncidentDetail, };

export type ExposureFigure = { 
/**
 * What it is, in words with its pay ("Dragon 7 (40 to 1)", "Hi-Lo true count").
 */
name: string, 
/**
 * A wager's house edge in percent (negative: the house is behind); a count's value.
 */
value: number, 
/**
 * Whether it is a wager's house edge rather than a count.
 */
wager: boolean, 
/**
 * Whether the house is behind on it (a wager worth more than it costs, a count that
 * favours the player).
 */
houseBehind: boolean, 
/**
 * The rule or pay table a wager comes from, as its rule book cites it ("" for a count).
 */
cite: string, };

export type ExposureRound = { 
/**
 * The round (1 for the shoe's first).
 */
round: number, 
/**
 * The event after which it was computed (a replay's step).
 */
afterSeq: number, 
/**
 * When that event was recorded (ms since the epoch), if it has a time.
 */
atMs: number | null, 
/**
 * Cards left in the shoe (cards not seen, such as a burn dealt face down, included).
 */
cardsLeft: number, 
/**
 * Each figure, the book's wagers in its order.
 */
figures: Array<ExposureFigure>, };

export type WagerBehind = { 
/**
 * The wager, in words with its pay.
 */
wager: string, 
/**
 * Rounds of the shoe with the house behind on it.
 */
rounds: number, };

export type ShoeExposure = { 
/**
 * The table.
 */
table: string, 
/**
 * The game dealt.
 */
game: Game, 
/**
 * The shoe.
 */
shoe: number, 
/**
 * The figures before each round, in order.
 */
rounds: Array<ExposureRound>, 
/**
 * The wagers the house was behind on in this shoe, with how many rounds, most first.
 */
behind: Array<WagerBehind>, };

export type ExposureAlert = { 
/**
 * The table.
 */
table: string, 
/**
 * The shoe.
 */
shoe: number, 
/**
 * The round about to be dealt when it was raised.
 */
round: number, 
/**
 * The wager, in words with its pay.
 */
wager: string, 
/**
 * Rounds of the shoe with the house behind on it.
 */
roundsBehind: number, 
/**
 * The house's edge on it then, in percent (negative).
 */
houseEdge: number, 
/**
 * When it was raised (ms since the epoch).
 */
atMs: number, };

export type TableExposure = { 
/**
 * The table.
 */
table: string, 
/**
 * The game dealt (null while the table has not been read yet).
 */
game: Game | null, 
/**
 * The shoe (0 before any).
 */
shoe: number, 
/**
 * The figures of the round about to be dealt (null before the shoe's first).
 */
next: ExposureRound | null, 
/**
 * The wager the house is worst placed on now (its lowest edge).
 */
worst: ExposureFigure | null, 
/**
 * Rounds of this shoe on which the house was behind on some wager.
 */
roundsBehind: number, 
/**
 * Why the table's exposure cannot be followed, if it cannot.
 */
problem: string | null, };

export type PitExposure = { 
/**
 * Every table whose game has exposure, sorted by the worst wager's edge, lowest first.
 */
tables: Array<TableExposure>, 
/**
 * Every alert raised, newest first.
 */
alerts: Array<ExposureAlert>, 
/**
 * After how many rounds of one shoe with the house behind on a wager an alert is raised.
 */
alertAfterRounds: number, };

export type ReportFormat = "pdf" | "csv";

export type PaceAlertView = { 
/**
 * The table.
 */
table: string, 
/**
 * The alert's code: `PACE_BELOW_TARGET` or `ERROR_BURST`.
 */
code: string, 
/**
 * The alert in words.
 */
words: string, 
/**
 * The shoe of the round it was raised at.
 */
shoe: number, 
/**
 * The round it was raised at.
 */
round: number, 
/**
 * The dealer of that round, as recorded (untrusted text).
 */
dealer: string | null, 
/**
 * What was measured: rounds an hour over the window, or the irregularities in the burst.
 */
measured: number, 
/**
 * What it was held to: the alert line in rounds an hour, or the burst's count.
 */
threshold: number, 
/**
 * What happened, in words for a supervisor.
 */
message: string, 
/**
 * When that round closed (ms since the epoch).
 */
atMs: number | null, };

export type PaceTargetView = { 
/**
 * Rounds an hour of dealing expected.
 */
roundsPerHour: number, 
/**
 * "Pace below target" under this many rounds an hour ...
 */
alertBelow: number, 
/**
 * ... over this many rounds.
 */
windowRounds: number, 
/**
 * "Error burst": this many irregularities against dealers ...
 */
burstErrors: number, 
/**
 * ... within this many rounds.
 */
burstRounds: number, };

export type StintView = { 
/**
 * The dealer, as recorded (untrusted text).
 */
dealer: string, 
/**
 * When they signed in (ms since the epoch).
 */
fromMs: number | null, 
/**
 * When the stint ended (null while still signed in, or without a time).
 */
toMs: number | null, 
/**
 * Still signed in at the end of the record.
 */
signedIn: boolean, };

export type CodeCount = { 
/**
 * The irregularity's code.
 */
code: string, 
/**
 * How many.
 */
count: number, };

export type DealerFiguresView = { 
/**
 * The dealer, as recorded (untrusted text).
 */
dealer: string, 
/**
 * Rounds counted (not interrupted by a device fault).
 */
rounds: number, 
/**
 * Their rounds a device fault interrupted, not counted against them.
 */
roundsExcused: number, 
/**
 * Rounds an hour of their dealing.
 */
roundsPerHour: number | null, 
/**
 * Irregularities counted against them per 100 rounds.
 */
errorsPer100Rounds: number | null, 
/**
 * Irregularities counted against them, by code.
 */
irregularities: Array<CodeCount>, };

export type DealersView = { 
/**
 * The table.
 */
table: string, 
/**
 * Its game.
 */
game: Game, 
/**
 * What it is held to (null: its game has no target).
 */
target: PaceTargetView | null, 
/**
 * The table's rounds an hour of dealing over the record.
 */
roundsPerHour: number | null, 
/**
 * Who was signed in, from when to when, in order.
 */
rota: Array<StintView>, 
/**
 * Each dealer's figures, in the order they first signed in.
 */
figures: Array<DealerFiguresView>, 
/**
 * The alerts raised, in order.
 */
alerts: Array<PaceAlertView>, };

/**
 * Every irregularity code's words (pitwatch-report's `words.rs`, the reports' too).
 */
export const IRREGULARITY_WORDS: Readonly<Record<string, string>> = {
  "BURN_MISSING": "Burn missing",
  "BURN_COUNT_MISMATCH": "Wrong number of burn cards",
  "DEAL_OUT_OF_ORDER": "Card dealt out of order",
  "UNAUTHORISED_THIRD_CARD": "Third card not allowed",
  "MISSING_THIRD_CARD": "Missing third card",
  "RESULT_MISMATCH": "Declared result differs from the cards",
  "EXCESS_CARD": "Foreign or duplicate card",
  "UNREADABLE_CARD": "Card not read",
  "CUTTING_CARD_MISPLACED": "Cutting card misplaced",
  "CUT_TOO_CLOSE_TO_END": "Cut too close to the end",
  "DEALT_PAST_LAST_COUP": "Card dealt after the last coup",
  "NOT_SHUFFLED": "Cards not shuffled",
  "CARD_EXPOSED": "Card exposed",
  "SHUFFLE_COUNT_MISMATCH": "Shuffler's count differs from the shoe",
  "DEVICE_ERROR": "Device error",
  "SHUFFLE_SUSPECT": "Suspect shuffle",
  "CARD_TO_FINISHED_HAND": "Card to a finished hand",
  "DEALER_DRAW_WRONG": "Dealer drew or stood against the rules",
  "WRONG_CARD_COUNT": "Wrong number of cards in a hand",
  "DECISION_NOT_ALLOWED": "Decision not allowed",
  "MISDEAL": "Misdeal",
  "MISDEAL_DECLARED": "Misdeal declared",
  "MISDEAL_AFTER_ACTION": "Misdeal after substantial action",
  "ORDER_DISCLOSED": "Card order disclosed by a device",
  "RECORDING_GAP": "Gap in recording",
  "DEVICE_OFFLINE": "Device offline",
  "DEVICE_SILENT": "Device silent",
  "DEVICE_SWAPPED": "Device swapped",
  "DEVICE_FIRMWARE_CHANGED": "Device firmware changed",
  "DEVICE_REENUMERATED": "Device came up on another port",
};

/**
 * Every audit action's words (pitwatch-report's `words.rs`, the reports' too).
 */
export const AUDIT_ACTION_WORDS: Readonly<Record<string, string>> = {
  "login.attempt": "Login attempt",
  "login.failed": "Failed login",
  "login.throttled": "Login refused (too many failures)",
  "login.locked": "Account locked",
  "login.refused": "Login refused by the access policy",
  "login.confirmed": "Password confirmed",
  "session.login": "Logged in",
  "session.logout": "Logged out",
  "session.ended": "Session ended by the same user's login elsewhere",
  "access.forbidden": "Refused: not allowed",
  "access.inspected": "Read by an inspector",
  "incidents.list": "Incident list read (inspector)",
  "access_listing.export": "Access listing exported",
  "review.access": "Access review signed",
  "review.log": "Audit log review signed",
  "user.first_admin": "First administrator created",
  "user.add": "User added",
  "user.role": "Role changed",
  "user.password": "Password set",
  "user.active": "Account activated or deactivated",
  "incident.acknowledge": "Incident acknowledged",
  "incident.note": "Note added",
  "incident.resolve": "Incident resolved",
  "incident.reopen": "Incident reopened",
  "incident.export": "Incident report exported",
  "incident.export_pack": "Incident evidence pack exported",
  "incident.view": "Incident looked at",
  "replay.view": "Shoe replayed",
  "exposure.view": "House exposure looked at (surveillance)",
  "exposure.export": "House exposure report exported (surveillance)",
  "exposure.alert": "A wager in the players' favour round after round (surveillance's alert)",
  "console.event": "Console entry recorded",
  "dealers.view": "A dealer's figures looked at (supervisors and administrators)",
  "dealers.export": "Dealers' report exported",
  "shoe.export": "Shoe report exported",
  "shift.export": "Shift report exported",
  "report.print": "Report sent to a printer",
  "shift.sign_off": "Shift signed off",
  "shift.accept": "Shift accepted by the incoming supervisor",
  "device.back": "Device back",
  "monitor.resumed": "Recording resumed after a restart",
  "pit.reload": "Pit definition reloaded",
  "alarm.mute": "Alarm sound muted",
  "alarm.unmute": "Alarm sound back on",
};

/**
 * Every resolution's words, as the record keeps them (`ResolutionKind::words`).
 */
export const RESOLUTION_WORDS: Readonly<Record<string, string>> = {
  "confirmed": "Confirmed irregularity — handled per procedure",
  "false_alarm": "False alarm — device misread",
  "duplicate": "Duplicate",
  "other": "Other",
};
