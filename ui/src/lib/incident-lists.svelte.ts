// The window's three lists of incidents, read a page at a time from the store with live changes
// merged into what is loaded: the incident screen's (its filters kept across screens), the open
// incidents behind the alert banner, and the current table's latest. Each list's latest request
// wins: an answer to an older one (the filters changed since) is dropped.
import type { ApiError, IncidentPage, IncidentQuery, IncidentRow } from "./bindings";
import { appendPage, applyLive, EMPTY_LIST, firstPage, NO_FILTER, reveal, sameQuery, toQuery, type IncidentFilter, type IncidentList } from "./incidents";
import { toApiError } from "./ipc";

/** The store's incident query (ipc.incidents in the window). */
export type FetchIncidents = (query: IncidentQuery) => Promise<IncidentPage>;

/** The alert banner's filter: every incident nobody has acknowledged. */
export const OPEN: IncidentFilter = { ...NO_FILTER, status: "open" };

/** How many open incidents the banner loads, and how many of a table's its screen shows. */
export const OPEN_LIMIT = 500;
export const TABLE_LIMIT = 12;

export class IncidentLists {
  /** The incident screen's filters and list. */
  filter: IncidentFilter = $state({ ...NO_FILTER });
  list: IncidentList = $state(EMPTY_LIST);
  failure: ApiError | null = $state(null);
  loadingMore = $state(false);
  /** The open incidents (the alerts). */
  open: IncidentList = $state(EMPTY_LIST);
  /** The current table's latest incidents. */
  tableFilter: IncidentFilter = $state({ ...NO_FILTER });
  table: IncidentList = $state(EMPTY_LIST);

  private listRequest = 0;
  private tableRequest = 0;

  constructor(private readonly fetch: FetchIncidents) {}

  /** The first pages of the alerts and of the incident screen's list (at start-up). */
  async loadFirst(): Promise<void> {
    const mine = ++this.listRequest;
    const [open, page] = await Promise.all([this.fetch(toQuery(OPEN, null, OPEN_LIMIT)), this.fetch(toQuery(this.filter))]);
    this.open = firstPage(open);
    if (mine === this.listRequest) this.list = firstPage(page);
  }

  /** Merges a new or changed incident into every list; a total a list cannot know is asked again. */
  live(row: IncidentRow, isNew: boolean): void {
    const a = applyLive(this.list, row, this.filter, isNew);
    this.list = a.list;
    if (a.recount) void this.recount(this.filter, (total) => (this.list = { ...this.list, total }));
    const b = applyLive(this.open, row, OPEN, isNew);
    this.open = b.list;
    if (b.recount) void this.recount(OPEN, (total) => (this.open = { ...this.open, total }));
    const c = applyLive(this.table, row, this.tableFilter, isNew);
    this.table = c.list;
    if (c.recount) void this.recount(this.tableFilter, (total) => (this.table = { ...this.table, total }));
  }

  private async recount(f: IncidentFilter, set: (total: number) => void): Promise<void> {
    try {
      const page = await this.fetch(toQuery(f, null, 1));
      set(page.total);
    } catch {
      // The next page load brings the total again.
    }
  }

  /** The first page of the incident screen's list for `f` (its filters changed). */
  async load(f: IncidentFilter): Promise<void> {
    const same = sameQuery(f, this.filter);
    this.filter = f;
    // Only the search of the rows loaded changed: nothing to ask the store.
    if (same) return;
    const mine = ++this.listRequest;
    this.failure = null;
    try {
      const page = await this.fetch(toQuery(f));
      if (mine === this.listRequest) this.list = firstPage(page);
    } catch (error) {
      if (mine === this.listRequest) this.failure = toApiError(error);
    }
  }

  /** The incident screen's next (older) page. */
  async more(): Promise<void> {
    if (this.list.next === null || this.loadingMore) return;
    const mine = this.listRequest;
    this.loadingMore = true;
    try {
      const page = await this.fetch(toQuery(this.filter, this.list.next));
      if (mine === this.listRequest) this.list = appendPage(this.list, page);
    } catch (error) {
      if (mine === this.listRequest) this.failure = toApiError(error);
    } finally {
      this.loadingMore = false;
    }
  }

  /** A table's latest incidents, for its screen (shown when they load; live ones arrive anyway). */
  async loadTable(name: string): Promise<void> {
    const f = { ...NO_FILTER, table: name };
    const mine = ++this.tableRequest;
    this.tableFilter = f;
    this.table = EMPTY_LIST;
    try {
      const page = await this.fetch(toQuery(f, null, TABLE_LIMIT));
      if (mine === this.tableRequest) this.table = firstPage(page);
    } catch {
      // The table screen shows its incidents when they load; live ones arrive anyway.
    }
  }

  /** Shows incident `id` in the incident screen's list even if its page is not loaded yet. */
  reveal(id: number): void {
    const known = this.open.rows.find((r) => r.id === id) ?? this.table.rows.find((r) => r.id === id);
    if (known) this.list = reveal(this.list, known, this.filter);
  }
}
