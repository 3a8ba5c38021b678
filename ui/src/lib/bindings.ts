// Generated from the Rust DTOs in crates/pitwatch-api/src/dto.rs. Do not edit:
// run `make bindings` after changing them.

export type PitOverview = { 
/**
 * The site's name.
 */
site: string, 
/**
 * Whether the tables are the simulated demo pit.
 */
demo: boolean, 
/**
 * The tables, in the pit definition's order.
 */
tables: Array<TableTile>, };

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
status: LinkStatus, };

export type Game = "baccarat" | "blackjack" | "pontoon";

export type Protocol = "angel-eye" | "barcode" | "pitwatch";

export type LinkStatus = "not_monitored" | "connected" | "reconnecting" | "error";

export type ApiError = { 
/**
 * What kind of failure, for the UI to act on.
 */
code: ErrorCode, 
/**
 * What happened, in words a supervisor understands.
 */
message: string, };

export type ErrorCode = "invalid_input" | "not_found" | "internal";
