//! The way in to the writer: every reader hands its events straight to one queue (no thread
//! between them), and each device may have at most a budget of bytes in the queue. A reader whose
//! device is over its budget waits in [`DeviceSink::deliver`] until the writer has taken some out:
//! it stops reading, the device's bytes wait in the operating system's buffer (and, on a serial
//! line with flow control, in the device), and a device flooding the line costs the monitor at
//! most its budget. One device's flood never holds up another's bytes.
//!
//! The writer takes inputs out as fast as it can, whether it can write them to the database or
//! only to its spool, so a reader only waits while the writer is busy with a transaction.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::Duration;

use pitwatch_codec::Screen;
use pitwatch_transport::{EventSink, TransportEvent};

use super::Input;

/// Per device, bytes in the queue, and the condition readers wait on.
struct Budget {
    used: Mutex<usize>,
    freed: Condvar,
}

impl Budget {
    fn new() -> Budget {
        Budget {
            used: Mutex::new(0),
            freed: Condvar::new(),
        }
    }
}

/// The queue's shared side.
pub(crate) struct Intake {
    /// By device number; devices a reload adds are added at the end.
    budgets: RwLock<Vec<Arc<Budget>>>,
    limit: usize,
    closed: AtomicBool,
}

/// The weight of a transport event against its device's budget.
pub(crate) fn weight(event: &TransportEvent) -> usize {
    64 + match event {
        TransportEvent::Chunk { bytes, .. } => bytes.len(),
        _ => 0,
    }
}

impl Intake {
    /// A queue for `devices` devices, each allowed `limit` bytes in it; the sender for other
    /// inputs (console entries, stop) and the writer's receiving end.
    pub(crate) fn new(
        devices: usize,
        limit: usize,
    ) -> (Arc<Intake>, Sender<Queued>, Receiver<Queued>) {
        let intake = Arc::new(Intake {
            budgets: RwLock::new((0..devices).map(|_| Arc::new(Budget::new())).collect()),
            limit: limit.max(1),
            closed: AtomicBool::new(false),
        });
        let (tx, rx) = mpsc::channel();
        (intake, tx, rx)
    }

    /// Device `device`'s budget.
    fn budget(&self, device: usize) -> Option<Arc<Budget>> {
        self.budgets
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(device)
            .cloned()
    }

    /// Adds budgets for `more` devices (a reload's new tables); returns the first one's number.
    pub(crate) fn grow(&self, more: usize) -> usize {
        let mut budgets = self.budgets.write().unwrap_or_else(|e| e.into_inner());
        let first = budgets.len();
        budgets.extend((0..more).map(|_| Arc::new(Budget::new())));
        first
    }

    /// The writer took `weight` bytes of `device`'s out of the queue.
    pub(crate) fn release(&self, device: usize, weight: usize) {
        if let Some(budget) = self.budget(device) {
            let mut used = budget.used.lock().unwrap_or_else(|e| e.into_inner());
            *used = used.saturating_sub(weight);
            budget.freed.notify_all();
        }
    }

    /// The writer has gone: readers stop waiting.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        for budget in self
            .budgets
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let _used = budget.used.lock().unwrap_or_else(|e| e.into_inner());
            budget.freed.notify_all();
        }
    }

    /// Bytes `device` has in the queue now.
    #[cfg(test)]
    pub(crate) fn used(&self, device: usize) -> usize {
        self.budget(device)
            .map_or(0, |b| *b.used.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// What travels through the queue: the input and, for a device's event, its weight.
pub(crate) struct Queued {
    pub(crate) input: Input,
    pub(crate) weight: usize,
}

/// A reader's end of the queue.
pub(crate) struct DeviceSink {
    pub(crate) device: usize,
    pub(crate) intake: Arc<Intake>,
    pub(crate) tx: Sender<Queued>,
    /// The device protocol's screen, when it has one: what must never be kept (a shuffled deck's
    /// order) is taken out here, in the reader's thread, before the queue, the spool, the journal
    /// or a decoder sees a byte of it.
    pub(crate) screen: Option<Box<dyn Screen>>,
}

impl EventSink for DeviceSink {
    fn deliver(&mut self, event: TransportEvent) -> bool {
        let Some(screen) = self.screen.as_mut() else {
            return self.enqueue(event);
        };
        match event {
            TransportEvent::Chunk { received_at, bytes } => {
                let mut kept = Vec::with_capacity(bytes.len());
                screen.push(&bytes, &mut kept);
                // Bytes of an unfinished line wait in the screen for the rest of the line.
                kept.is_empty()
                    || self.enqueue(TransportEvent::Chunk {
                        received_at,
                        bytes: kept,
                    })
            }
            TransportEvent::Disconnected { at, reason } => {
                let mut kept = Vec::new();
                screen.finish(&mut kept);
                (kept.is_empty()
                    || self.enqueue(TransportEvent::Chunk {
                        received_at: at,
                        bytes: kept,
                    }))
                    && self.enqueue(TransportEvent::Disconnected { at, reason })
            }
            other => self.enqueue(other),
        }
    }
}

impl DeviceSink {
    /// Queues one event for the writer, waiting while this device has too much queued.
    fn enqueue(&mut self, event: TransportEvent) -> bool {
        let Some(budget) = self.intake.budget(self.device) else {
            return false;
        };
        let weight = weight(&event);
        {
            let mut used = budget.used.lock().unwrap_or_else(|e| e.into_inner());
            // Something always gets through when nothing of this device waits, however big.
            while *used > 0 && *used + weight > self.intake.limit {
                if self.intake.closed.load(Ordering::SeqCst) {
                    return false;
                }
                used = budget
                    .freed
                    .wait_timeout(used, Duration::from_millis(100))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            *used += weight;
        }
        let sent = self
            .tx
            .send(Queued {
                input: Input::Transport(self.device, event),
                weight,
            })
            .is_ok();
        if !sent {
            self.intake.release(self.device, weight);
        }
        sent
    }
}

/// Takes the next input, waiting at most `wait`: `Ok(None)` when nothing came in time, `Err`
/// when every sender has gone.
pub(crate) fn next(
    rx: &Receiver<Queued>,
    intake: &Intake,
    wait: Duration,
) -> Result<Option<Input>, ()> {
    match rx.recv_timeout(wait) {
        Ok(queued) => Ok(Some(take(queued, intake))),
        Err(RecvTimeoutError::Timeout) => Ok(None),
        Err(RecvTimeoutError::Disconnected) => Err(()),
    }
}

/// Takes an input that is there now, if any.
pub(crate) fn try_next(rx: &Receiver<Queued>, intake: &Intake) -> Option<Input> {
    rx.try_recv().ok().map(|queued| take(queued, intake))
}

fn take(queued: Queued, intake: &Intake) -> Input {
    if let Input::Transport(device, _) = &queued.input {
        intake.release(*device, queued.weight);
    }
    queued.input
}

#[cfg(test)]
mod tests {
    use super::*;
    use pitwatch_model::Timestamp;
    use std::time::Instant;

    fn chunk(n: usize) -> TransportEvent {
        TransportEvent::Chunk {
            received_at: Timestamp::from_unix_millis(0).unwrap(),
            bytes: vec![0; n],
        }
    }

    #[test]
    fn a_flooding_device_waits_for_the_writer_and_holds_up_no_other() {
        let (intake, tx, rx) = Intake::new(2, 1000);
        let mut flood = DeviceSink {
            device: 0,
            intake: Arc::clone(&intake),
            tx: tx.clone(),
            screen: None,
        };
        let mut quiet = DeviceSink {
            device: 1,
            intake: Arc::clone(&intake),
            tx,
            screen: None,
        };
        let reader = std::thread::spawn(move || {
            for _ in 0..50 {
                assert!(flood.deliver(chunk(400)));
            }
        });
        // The flooding reader is held at its budget: two chunks of 464 bytes.
        let deadline = Instant::now() + Duration::from_secs(5);
        while intake.used(0) < 928 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(intake.used(0), 928);
        // Another device gets through at once.
        assert!(quiet.deliver(chunk(10)));
        assert_eq!(intake.used(1), 74);
        // The writer takes everything out; the flood flows on.
        let mut taken = 0;
        while taken < 51 {
            if next(&rx, &intake, Duration::from_secs(5))
                .unwrap()
                .is_some()
            {
                taken += 1;
            }
        }
        reader.join().unwrap();
        assert_eq!((intake.used(0), intake.used(1)), (0, 0));
    }

    #[test]
    fn a_waiting_reader_stops_when_the_writer_is_gone() {
        let (intake, tx, rx) = Intake::new(1, 100);
        let mut sink = DeviceSink {
            device: 0,
            intake: Arc::clone(&intake),
            tx,
            screen: None,
        };
        assert!(sink.deliver(chunk(100)));
        let reader = std::thread::spawn(move || sink.deliver(chunk(100)));
        std::thread::sleep(Duration::from_millis(50));
        intake.close();
        drop(rx);
        assert!(!reader.join().unwrap());
    }
}
