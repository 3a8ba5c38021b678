//! The monitor's one writer: it owns the store and every table's recorder, takes what the readers
//! queued (up to [`super::GROUP_MAX`] inputs), plans each table's rows, writes them in one
//! transaction, retries a failed one with a growing delay while what keeps arriving waits in the
//! spool, and only then publishes what was derived ([`Publisher`]: it never blocks the writer).

use super::*;

/// The table of a device whose table a reload stopped: no recorder has it.
const RETIRED: usize = usize::MAX;

/// The consumer's end of the published events: never blocks the writer.
pub(super) struct Publisher {
    pub(super) tx: SyncSender<MonitorEvent>,
    pub(super) missed: u64,
}

impl Publisher {
    pub(super) fn publish(&mut self, event: MonitorEvent) {
        if self.missed > 0 {
            match self
                .tx
                .try_send(MonitorEvent::Missed { count: self.missed })
            {
                Ok(()) => self.missed = 0,
                Err(_) => {
                    self.missed += 1;
                    return;
                }
            }
        }
        match self.tx.try_send(event) {
            Ok(()) => {}
            // Nobody listening is fine: the record is what matters.
            Err(TrySendError::Disconnected(_)) => {}
            Err(TrySendError::Full(_)) => self.missed += 1,
        }
    }
}

/// Where a console entry's answer goes.
pub(super) type Reply = SyncSender<Result<u64, String>>;

/// What a flight publishes once it is on record, in the order of its inputs.
#[allow(clippy::large_enum_variant)] // as MonitorEvent: one at a time, no allocation each
pub(super) enum Shown {
    /// What a table derived from an input, and the table's view after it.
    Derived(usize, Vec<PlannedDerived>, GameView),
    /// A link change or a failure.
    Event(MonitorEvent),
}

/// A group of inputs whose rows are planned and not yet on record.
pub(super) struct Flight {
    inputs: Vec<Input>,
    writes: Writes,
    shown: Vec<Shown>,
    replies: Vec<(Reply, Result<u64, String>)>,
    touched: Vec<usize>,
    mark: Option<u64>,
    bytes: u64,
}

/// Why the writer cannot write, since when, and when it tries again.
pub(super) struct Troubled {
    trouble: Trouble,
    reason: String,
    since: Timestamp,
    attempts: u64,
    dropped: u64,
    next_try: Instant,
    delay: Duration,
    reported: Instant,
    reopen: bool,
}

/// The writer thread's state: the store, every table's recorder, the spool, and what is being
/// retried.
pub(super) struct Writer {
    pub(super) store: Option<Store>,
    pub(super) path: Option<PathBuf>,
    /// How the record is signed, to open it again after an I/O error.
    pub(super) sealing: Option<Sealing>,
    /// The checkpoint journals as last published.
    pub(super) journals: Vec<pitwatch_store::JournalStatus>,
    pub(super) recorders: Vec<TableRecorder>,
    /// Each table's devices' liveness, with the incident of the alarm standing.
    pub(super) watches: Vec<Vec<(Watch, Option<AlarmIncident>)>>,
    /// Each device's (table, device at the table), by the device's number in the pit.
    pub(super) streams: Vec<(usize, usize)>,
    pub(super) by_name: HashMap<String, usize>,
    pub(super) intake: Arc<Intake>,
    pub(super) inputs: Receiver<Queued>,
    pub(super) spool: Spool,
    pub(super) flight: Option<Flight>,
    pub(super) publisher: Publisher,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) trouble: Option<Troubled>,
    pub(super) holder: Holder,
    pub(super) options: MonitorOptions,
    /// The number of the last spool file entry on record.
    pub(super) spool_mark: u64,
    pub(super) spool_key: Option<String>,
    pub(super) notes: Vec<MonitorEvent>,
    /// A reload waiting for what arrived before it to be on record.
    pub(super) reload: Option<Box<Reload>>,
    /// The host clock's watch ([`super::clock`]).
    pub(super) clock_watch: crate::clock::ClockWatch,
    // Held while the writer runs: the spool file is this monitor's.
    pub(super) _spool_lock: Option<SpoolLock>,
}

impl Writer {
    pub(super) fn run(mut self) -> Result<(), StoreError> {
        self.spool_key = self.spool.file_path().map(mark_key);
        if let (Some(store), Some(key)) = (&self.store, &self.spool_key) {
            self.spool_mark = store
                .meta(key)
                .ok()
                .flatten()
                .and_then(|m| m.parse().ok())
                .unwrap_or(0);
        }
        for note in std::mem::take(&mut self.notes) {
            self.publisher.publish(note);
        }
        // Each table as resumed from the record, so a restarted monitor shows where the shoe
        // stands before the first new byte arrives.
        for recorder in &self.recorders {
            let view = MonitorEvent::View {
                table: recorder.name().to_owned(),
                view: recorder.view(),
            };
            self.publisher.publish(view);
        }
        let outcome = self.work();
        self.intake.close();
        if let Some(store) = self.store.as_mut() {
            // The last checkpoint kept back from the journals is written before leaving.
            store.flush_witness();
            let _ = store.release_leases(&self.holder.process);
        }
        // Should the database not have let the leases go, they are known to be free now.
        self.holder.retire();
        outcome
    }

    fn work(&mut self) -> Result<(), StoreError> {
        let mut stopping: Option<Instant> = None;
        let mut heartbeat = Instant::now();
        let mut last_input = Instant::now();
        loop {
            let wait = self.wait_time(stopping.is_some());
            match intake::next(&self.inputs, &self.intake, wait) {
                Ok(Some(input)) => {
                    self.gather(input, &mut stopping);
                    last_input = Instant::now();
                }
                Ok(None) => {
                    if last_input.elapsed() >= WITNESS_IDLE {
                        // Idle: the checkpoint the journals were kept waiting for is written.
                        if let Some(store) = self.store.as_mut() {
                            store.flush_witness();
                        }
                    }
                }
                // Every sender gone (the monitor was dropped mid-start): stop.
                Err(()) => stopping = stopping.or(Some(Instant::now())),
            }
            while let Some(input) = intake::try_next(&self.inputs, &self.intake) {
                self.gather(input, &mut stopping);
                if self.spool.len() >= GROUP_MAX as u64 {
                    break;
                }
            }
            if stopping.is_some() {
                // Whatever a device was losing is on account now.
                self.spool.close_gaps();
            }
            self.write_what_waits(&mut stopping);
            self.apply_reload(stopping.is_some());
            if stopping.is_none() {
                self.tick();
                self.sample_clock();
            }
            self.spool.flush();
            self.report();
            self.report_journals();
            if self.trouble.is_none() && heartbeat.elapsed() >= self.options.heartbeat_every {
                heartbeat = Instant::now();
                let now = self.clock.now().unix_millis();
                if let Some(store) = self.store.as_mut() {
                    let _ = store.renew_leases(&self.holder.process, now);
                }
            }
            if let Some(since) = stopping {
                let done = self.flight.is_none() && self.spool.is_empty();
                if done {
                    return Ok(());
                }
                if since.elapsed() >= self.options.stop_grace {
                    return self.leave_for_next_start();
                }
            }
        }
    }

    /// Applies the reload waiting, once what arrived before it is on record (while recording is
    /// degraded, once the backlog is written); refuses it when the monitor is stopping.
    fn apply_reload(&mut self, stopping: bool) {
        let Some(reload) = self.reload.take() else {
            return;
        };
        if stopping {
            let _ = reload.reply.send(Err("the monitor is stopping".into()));
            return;
        }
        // While recording is degraded, the reload waits for the backlog to be written: the
        // readers of the tables it stops are stopped already, and the ends of their sessions
        // are in that backlog.
        if self.trouble.is_some() || self.flight.is_some() || !self.spool.is_empty() {
            self.reload = Some(reload);
            return;
        }
        let answer = self.reload_tables(&reload.stop, &reload.start);
        let result = match &answer {
            Ok(_) => "applied".to_owned(),
            Err(e) => format!("failed: {e}"),
        };
        let mut fields: Vec<(&str, &str)> = reload
            .fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        fields.push(("result", &result));
        let detail = reload.by.detail(&fields);
        let now = self.clock.now();
        let audited = match self.store.as_mut() {
            Some(store) => store
                .batch(now)
                .and_then(|mut batch| {
                    batch.append_audit(&reload.by.user, PIT_RELOAD, "pit", &detail, now)?;
                    batch.commit()
                })
                .map_err(|e| e.to_string()),
            None => Err("the database is not open".into()),
        };
        if let Err(e) = audited {
            // What was applied runs (its readers are started); the missing audit row is shown.
            self.publisher.publish(MonitorEvent::Failed {
                table: None,
                message: format!("the reload of the pit definition was not audited: {e}"),
            });
        }
        let _ = reload.reply.send(answer);
    }

    /// Retires the tables named in `stop` (their sessions already ended: their readers reported
    /// their disconnections, now on record) and starts those in `start` as at start-up; returns
    /// the number of the first new device.
    fn reload_tables(
        &mut self,
        stop: &[String],
        start: &[MonitoredTable],
    ) -> Result<usize, String> {
        let Some(store) = self.store.as_mut() else {
            return Err("not reloaded: the database is not open".into());
        };
        let now = self.clock.now();
        for name in stop {
            let Some(index) = self.by_name.remove(name) else {
                continue;
            };
            // Its recorder stays, never fed again; its watches raise no alarm.
            if let Some(watches) = self.watches.get_mut(index) {
                watches.clear();
            }
            for stream in self.streams.iter_mut().filter(|s| s.0 == index) {
                stream.0 = RETIRED;
            }
            store
                .release_lease(&self.holder.process, name)
                .map_err(|e| format!("table {name}: its lease was not given up: {e}"))?;
        }
        if let Some(t) = start
            .iter()
            .find(|t| self.by_name.contains_key(&t.config.name))
        {
            return Err(format!("table {} is running already", t.config.name));
        }
        let names: Vec<String> = start.iter().map(|t| t.config.name.clone()).collect();
        if names.is_empty() {
            return Ok(self.streams.len());
        }
        self.holder
            .acquire(store, &names, now)
            .map_err(|e| e.to_string())?;
        let mut opened = Vec::with_capacity(start.len());
        for table in start {
            match open_recorder(store, table, now) {
                Ok(recorder) => opened.push(recorder),
                Err(e) => {
                    for name in &names {
                        let _ = store.release_lease(&self.holder.process, name);
                    }
                    return Err(e.to_string());
                }
            }
        }
        let devices: usize = start.iter().map(|t| t.more_links.len() + 1).sum();
        let first = self.intake.grow(devices);
        debug_assert_eq!(first, self.streams.len());
        for (table, recorder) in start.iter().zip(opened) {
            let index = self.recorders.len();
            let view = MonitorEvent::View {
                table: table.config.name.clone(),
                view: recorder.view(),
            };
            self.recorders.push(recorder);
            self.watches.push(watches_of(table, now));
            self.by_name.insert(table.config.name.clone(), index);
            for k in 0..=table.more_links.len() {
                self.streams.push((index, k));
            }
            self.spool
                .add_names((0..=table.more_links.len()).map(|k| table.config.stream_name(k)));
            // Where the table stands as resumed, before its first new byte.
            self.publisher.publish(view);
        }
        Ok(first)
    }

    /// How long to wait for input: until the next retry when a write failed, else a while.
    fn wait_time(&self, stopping: bool) -> Duration {
        let tick = if stopping {
            Duration::from_millis(20)
        } else {
            self.options.report_every.min(Duration::from_millis(500))
        };
        match &self.trouble {
            Some(t) => t
                .next_try
                .saturating_duration_since(Instant::now())
                .min(tick),
            None if !self.spool.is_empty() => Duration::ZERO,
            None => self.until_deadline().map_or(tick, |d| d.min(tick)),
        }
    }

    /// How long until the next liveness deadline passes (as the timer sees it).
    fn until_deadline(&self) -> Option<Duration> {
        let next = self
            .watches
            .iter()
            .flatten()
            .filter_map(|(w, _)| w.deadline())
            .map(|d| d.unix_millis())
            .min()?;
        let now = self.clock.now().unix_millis() - LIVENESS_SLACK_MS;
        Some(Duration::from_millis(
            u64::try_from(next + 1 - now).unwrap_or(0),
        ))
    }

    /// The liveness timer: when a device's deadline has passed and nothing else is being
    /// written, its alarm is planned and written on its own.
    fn tick(&mut self) {
        if self.flight.is_some() || self.trouble.is_some() || !self.spool.is_empty() {
            return;
        }
        if self.until_deadline() != Some(Duration::ZERO) {
            return;
        }
        self.flight = Some(self.plan(Vec::new(), None));
        self.attempt();
    }

    /// Feeds one device's liveness watch and plans what it changed.
    fn watch(
        &mut self,
        index: usize,
        device: usize,
        flight: &mut Flight,
        derived: &mut Vec<PlannedDerived>,
        feed: impl FnOnce(&mut Watch, &mut Vec<Change>),
    ) {
        let (Some(recorder), Some((watch, standing))) = (
            self.recorders.get_mut(index),
            self.watches.get_mut(index).and_then(|w| w.get_mut(device)),
        ) else {
            return;
        };
        let mut changes = Vec::new();
        feed(watch, &mut changes);
        for change in changes {
            recorder.plan_liveness(device, &mut flight.writes, change, standing, derived);
        }
    }

    /// Tells table `index`'s watches whether a shoe is in play at `at`, as `view` shows it,
    /// when what was just planned entered an event (nothing else changes play).
    fn watch_play(
        &mut self,
        index: usize,
        at: Timestamp,
        view: &GameView,
        flight: &mut Flight,
        derived: &mut Vec<PlannedDerived>,
    ) {
        if !derived.iter().any(PlannedDerived::is_event) {
            return;
        }
        let play = crate::recorder::view_in_play(view);
        for k in 0..self.watches.get(index).map_or(0, Vec::len) {
            self.watch(index, k, flight, derived, |w, c| w.in_play(at, play, c));
        }
    }

    /// The timer's part of a plan: every device's watch advanced to the clock (less the
    /// slack), each alarm due planned.
    fn plan_ticks(&mut self, flight: &mut Flight) {
        let Some(now) =
            Timestamp::from_unix_millis(self.clock.now().unix_millis() - LIVENESS_SLACK_MS)
        else {
            return;
        };
        for index in 0..self.watches.len() {
            let mut derived = Vec::new();
            for device in 0..self.watches[index].len() {
                self.watch(index, device, flight, &mut derived, |w, changes| {
                    changes.extend(w.advance(now))
                });
            }
            if !derived.is_empty() {
                let view = self.recorders[index].view();
                flight.shown.push(Shown::Derived(index, derived, view));
                flight.touched.push(index);
            }
        }
    }

    /// Puts an input that arrived in the spool (console entries are answered at once while
    /// recording is degraded: a supervisor must not wait on a database that cannot be written).
    fn gather(&mut self, input: Input, stopping: &mut Option<Instant>) {
        match input {
            Input::Stop => *stopping = stopping.or(Some(Instant::now())),
            Input::Reload(reload) => match self.reload {
                Some(_) => {
                    let _ = reload.reply.send(Err("another reload is under way".into()));
                }
                None => self.reload = Some(reload),
            },
            Input::Console { reply, .. } if self.trouble.is_some() => {
                let _ = reply.send(Err(format!(
                    "not recorded: recording is degraded ({}); enter it again once the \
                     database can be written",
                    self.trouble.as_ref().map_or("", |t| t.trouble.describe())
                )));
            }
            input => self.spool.push(input),
        }
    }

    /// Retries the write that failed, when it is time, then writes what waits, group by group,
    /// until a write fails or nothing waits.
    fn write_what_waits(&mut self, stopping: &mut Option<Instant>) {
        if self.spool.gaps_closable() {
            self.spool.close_gaps();
        }
        loop {
            if self.flight.is_none() {
                if self.spool.is_empty() {
                    return;
                }
                let (inputs, mark) = self.spool.take(GROUP_MAX);
                if inputs.is_empty() {
                    return;
                }
                self.flight = Some(self.plan(inputs, mark));
            }
            if let Some(t) = &self.trouble {
                if Instant::now() < t.next_try {
                    return;
                }
            }
            if !self.attempt() {
                return;
            }
            // Between groups, let the readers hand on what arrived meanwhile (a long backlog
            // must not hold them up).
            while let Some(input) = intake::try_next(&self.inputs, &self.intake) {
                self.gather(input, stopping);
            }
            if self.trouble.is_some() {
                self.report();
            }
        }
    }

    /// Plans the rows of a group of inputs with the tables' recorders.
    fn plan(&mut self, inputs: Vec<Input>, mark: Option<u64>) -> Flight {
        let mut flight = Flight {
            inputs: Vec::new(),
            writes: Writes::new(),
            shown: Vec::new(),
            replies: Vec::new(),
            touched: Vec::new(),
            mark,
            bytes: 0,
        };
        for input in inputs {
            flight.bytes += spool::weight(&input) as u64;
            let mut derived = Vec::new();
            let mut link: Option<MonitorEvent> = None;
            match &input {
                Input::Transport(stream, event) => {
                    let Some(&(index, device)) = self.streams.get(*stream) else {
                        continue;
                    };
                    let Some(recorder) = self.recorders.get_mut(index) else {
                        continue;
                    };
                    match event {
                        TransportEvent::Connected {
                            at,
                            description,
                            usb,
                        } => {
                            let identity =
                                usb.clone().map_or_else(DeviceIdentity::default, |usb| {
                                    DeviceIdentity {
                                        make: usb.manufacturer.unwrap_or_default(),
                                        model: usb.product.unwrap_or_else(|| {
                                            format!("{:04x}:{:04x}", usb.vid, usb.pid)
                                        }),
                                        serial: usb.serial_number.unwrap_or_default(),
                                        ..DeviceIdentity::default()
                                    }
                                });
                            recorder.plan_connect(
                                device,
                                &mut flight.writes,
                                description,
                                identity,
                                *at,
                                &mut derived,
                            );
                            let at = *at;
                            self.watch(index, device, &mut flight, &mut derived, |w, c| {
                                w.connected(at, c)
                            });
                            let recorder = &self.recorders[index];
                            link = Some(MonitorEvent::Link {
                                table: recorder.name().to_owned(),
                                device,
                                state: LinkState::Connected,
                                detail: description.clone(),
                                at,
                            });
                        }
                        TransportEvent::ConnectFailed { at, reason, .. } => {
                            link = Some(MonitorEvent::Link {
                                table: recorder.name().to_owned(),
                                device,
                                state: LinkState::Retrying,
                                detail: reason.clone(),
                                at: *at,
                            });
                        }
                        TransportEvent::Chunk { received_at, bytes } => {
                            if let Err(e) = recorder.plan_chunk(
                                device,
                                &mut flight.writes,
                                *received_at,
                                bytes,
                                &mut derived,
                            ) {
                                link = Some(MonitorEvent::Failed {
                                    table: Some(recorder.name().to_owned()),
                                    message: e.to_string(),
                                });
                            }
                            let at = *received_at;
                            self.watch(index, device, &mut flight, &mut derived, |w, c| {
                                w.received(at, c)
                            });
                        }
                        TransportEvent::Disconnected { at, reason } => {
                            recorder.plan_disconnect(
                                device,
                                &mut flight.writes,
                                *at,
                                reason,
                                &mut derived,
                            );
                            let at = *at;
                            self.watch(index, device, &mut flight, &mut derived, |w, c| {
                                w.disconnected(at, c)
                            });
                            let recorder = &self.recorders[index];
                            link = Some(MonitorEvent::Link {
                                table: recorder.name().to_owned(),
                                device,
                                state: LinkState::Disconnected,
                                detail: reason.clone(),
                                at,
                            });
                        }
                    }
                    if !matches!(event, TransportEvent::ConnectFailed { .. }) {
                        let view = self.recorders[index].view();
                        if let TransportEvent::Chunk { received_at, .. } = event {
                            // What it dealt may start or end play, for every device.
                            self.watch_play(index, *received_at, &view, &mut flight, &mut derived);
                        }
                        flight.shown.push(Shown::Derived(index, derived, view));
                        flight.touched.push(index);
                    }
                    flight.shown.extend(link.take().map(Shown::Event));
                }
                Input::Gap(stream, gap) => {
                    let Some(&(index, device)) = self.streams.get(*stream) else {
                        continue;
                    };
                    let now = self.clock.now();
                    if let Some(recorder) = self.recorders.get_mut(index) {
                        recorder.plan_gap(device, &mut flight.writes, gap, now, &mut derived);
                        // The device was sending all along: its bytes were lost, not missed.
                        let last = gap.last;
                        self.watch(index, device, &mut flight, &mut derived, |w, c| {
                            w.received(last, c)
                        });
                        let view = self.recorders[index].view();
                        flight.shown.push(Shown::Derived(index, derived, view));
                        flight.touched.push(index);
                    }
                }
                Input::Console { .. } | Input::Reload(_) | Input::Stop => {}
            }
            match input {
                Input::Console {
                    table,
                    kind,
                    by,
                    at,
                    reply,
                } => match self.by_name.get(&table) {
                    None => flight
                        .replies
                        .push((reply, Err(format!("no table named {table:?}")))),
                    Some(&index) => {
                        let recorder = &mut self.recorders[index];
                        let mut derived = Vec::new();
                        let seq =
                            recorder.plan_console(&mut flight.writes, kind, &by, at, &mut derived);
                        flight.replies.push((reply, Ok(seq)));
                        // A console entry may start or end play.
                        let view = self.recorders[index].view();
                        self.watch_play(index, at, &view, &mut flight, &mut derived);
                        flight.shown.push(Shown::Derived(index, derived, view));
                        flight.touched.push(index);
                    }
                },
                Input::Reload(_) | Input::Stop => {}
                other => flight.inputs.push(other),
            }
        }
        self.plan_ticks(&mut flight);
        flight.touched.sort_unstable();
        flight.touched.dedup();
        // Rejected bytes held back by a table are written with this group.
        for &index in &flight.touched {
            let recorder = &mut self.recorders[index];
            let mut derived = Vec::new();
            recorder.flush_garbage(&mut flight.writes, &mut derived);
            if !derived.is_empty() {
                flight
                    .shown
                    .push(Shown::Derived(index, derived, recorder.view()));
            }
        }
        if let (Some(mark), Some(key)) = (mark, &self.spool_key) {
            flight.writes.set_meta(key, &mark.to_string());
        }
        flight
    }

    /// Tries to write the flight; true when it is on record (and published).
    fn attempt(&mut self) -> bool {
        let Some(flight) = self.flight.take() else {
            return true;
        };
        match self.try_write(&flight.writes) {
            Ok(written) => {
                if let Some(mark) = flight.mark {
                    self.spool_mark = mark;
                }
                self.spool.written();
                self.published(flight, &written);
                if let Some(t) = self.trouble.as_mut() {
                    // Written again: the next failure starts its backoff afresh.
                    t.delay = self.options.retry_first;
                    t.next_try = Instant::now();
                }
                true
            }
            Err(error) => {
                let trouble = error.trouble();
                let now = self.clock.now();
                let first = self.options.retry_first;
                let t = self.trouble.get_or_insert_with(|| Troubled {
                    trouble,
                    reason: String::new(),
                    since: now,
                    attempts: 0,
                    dropped: 0,
                    next_try: Instant::now(),
                    delay: first,
                    reported: Instant::now() - Duration::from_secs(3600),
                    reopen: false,
                });
                t.trouble = trouble;
                t.reason = format!("{}: {error}", trouble.describe());
                t.attempts += 1;
                t.reopen |= trouble.reopen();
                t.next_try = Instant::now() + t.delay;
                t.delay = (t.delay * 2).min(self.options.retry_max);
                self.flight = Some(flight);
                false
            }
        }
    }

    fn try_write(&mut self, writes: &Writes) -> Result<Written, StoreError> {
        if writes.is_empty() {
            // Only link attempts: nothing to record, nothing to wait for.
            return Ok(Written::default());
        }
        let reopen = self.trouble.as_ref().is_some_and(|t| t.reopen);
        if reopen || self.store.is_none() {
            // After an I/O error SQLite may keep failing on the same connection.
            self.store = None;
            let path = self.path.clone().ok_or_else(|| {
                StoreError::Invalid("the database in memory cannot be opened again".into())
            })?;
            let sealing = self.sealing.clone().ok_or_else(|| {
                StoreError::Invalid("the record cannot be opened again for writing".into())
            })?;
            let mut store = Store::open(&path, &sealing)?;
            store.set_busy_timeout(self.options.busy_wait)?;
            self.store = Some(store);
            if let Some(t) = self.trouble.as_mut() {
                t.reopen = false;
            }
        }
        let store = self
            .store
            .as_mut()
            .ok_or_else(|| StoreError::Invalid("no database".into()))?;
        // The transaction's time, for its signed checkpoint.
        let mut batch = store.batch(self.clock.now())?;
        let written = writes.execute(&mut batch)?;
        batch.commit()?;
        Ok(written)
    }

    /// Publishes the checkpoint journals when what went wrong writing them changed: a journal
    /// that cannot be written never stops recording, but must be shown.
    fn report_journals(&mut self) {
        let Some(store) = self.store.as_ref() else {
            return;
        };
        let now = store.journal_status();
        if now != self.journals {
            self.journals = now;
            self.publisher
                .publish(MonitorEvent::Witness(self.journals.clone()));
        }
    }

    /// The flight is on record: the recorders learn their rows' ids, and only now is anything
    /// shown.
    fn published(&mut self, flight: Flight, written: &Written) {
        for &index in &flight.touched {
            self.recorders[index].settle(written);
        }
        for shown in flight.shown {
            match shown {
                Shown::Derived(index, derived, view) => {
                    let table = self.recorders[index].name().to_owned();
                    for item in derived {
                        let derived = written.resolve(item);
                        if let Derived::Liveness {
                            device,
                            change: Change::Raised(_),
                            incident: Some(id),
                        } = &derived
                        {
                            // The standing alarm's incident is on record now.
                            if let Some((_, standing @ Some(AlarmIncident::Planned(_)))) =
                                self.watches.get_mut(index).and_then(|w| w.get_mut(*device))
                            {
                                *standing = Some(AlarmIncident::Known(*id));
                            }
                        }
                        self.publisher.publish(MonitorEvent::Derived {
                            table: table.clone(),
                            derived,
                        });
                    }
                    self.publisher.publish(MonitorEvent::View { table, view });
                }
                Shown::Event(event) => self.publisher.publish(event),
            }
        }
        for (reply, answer) in flight.replies {
            let _ = reply.send(answer);
        }
    }

    /// Publishes the recording state: on every change of trouble, once a second while
    /// degraded, and once when recovered.
    fn report(&mut self) {
        let backlog_bytes = self.spool.memory_bytes() as u64
            + self.spool.file_bytes()
            + self.flight.as_ref().map_or(0, |f| f.bytes);
        let backlog_inputs =
            self.spool.len() + self.flight.as_ref().map_or(0, |f| f.inputs.len() as u64);
        let recovered =
            self.flight.is_none() && self.spool.is_empty() && !self.spool.has_open_gaps();
        let dropped = self.spool.take_dropped();
        let Some(t) = self.trouble.as_mut() else {
            if dropped > 0 {
                // Dropped without a failed write (the spool's bounds are smaller than one
                // group): still reported, once.
                let state = RecordingState {
                    degraded: false,
                    reason: "the spool was full".into(),
                    since: None,
                    backlog_bytes,
                    backlog_inputs,
                    spooled_bytes: self.spool.file_bytes(),
                    dropped_bytes: dropped,
                    attempts: 0,
                };
                self.publisher.publish(MonitorEvent::Recording(state));
            }
            return;
        };
        t.dropped += dropped;
        let state = RecordingState {
            degraded: !recovered,
            reason: t.reason.clone(),
            since: Some(t.since),
            backlog_bytes,
            backlog_inputs,
            spooled_bytes: self.spool.file_bytes(),
            dropped_bytes: t.dropped,
            attempts: t.attempts,
        };
        if recovered {
            self.trouble = None;
            self.publisher.publish(MonitorEvent::Recording(state));
        } else if t.reported.elapsed() >= self.options.report_every {
            t.reported = Instant::now();
            self.publisher.publish(MonitorEvent::Recording(state));
        }
    }

    /// Stopping while the database still cannot be written: what waits goes to the spool file,
    /// which the next start writes first.
    fn leave_for_next_start(&mut self) -> Result<(), StoreError> {
        let mut inputs = Vec::new();
        let mut reason = "stopping".to_owned();
        if let Some(flight) = self.flight.take() {
            for (reply, _) in flight.replies {
                let _ = reply.send(Err("the monitor stopped before recording it".into()));
            }
            inputs = flight.inputs;
        }
        if let Some(t) = &self.trouble {
            reason = t.reason.clone();
        }
        let waiting = inputs.len() as u64 + self.spool.len();
        let lost = self.spool.persist(inputs, self.spool_mark);
        let kept = match self.spool.file_path() {
            Some(path) if lost == 0 => format!("kept in {} for the next start", path.display()),
            Some(path) => format!(
                "kept in {} for the next start, except {lost} bytes that did not fit",
                path.display()
            ),
            None => "lost: there is no spool file".into(),
        };
        let message =
            format!("stopped while {reason}: {waiting} input(s) not on record were {kept}");
        self.publisher.publish(MonitorEvent::Failed {
            table: None,
            message: message.clone(),
        });
        Err(StoreError::Invalid(message))
    }
}
