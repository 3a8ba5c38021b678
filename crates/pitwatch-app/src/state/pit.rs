//! The running pit's part of the desk: the tables running now (the start's, then each
//! reload's), the one change at a time to them, the live model (one tile per table, folded by
//! the fold thread), the updates to the window, and the devices: the monitor, the demo's
//! simulated devices, replication and the fold thread, stopped together. The use cases on it
//! are `crate::reload`'s, `crate::tables`', `crate::console`'s and `crate::incidents`'.

use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use pitwatch_api::dto::{ApiError, ErrorCode, PitUpdate};
use pitwatch_recording::monitor::Monitor;
use pitwatch_recording::pit::PitConfig;
#[cfg(feature = "demo")]
use pitwatch_sim::SimDevice;

use super::lock;
use crate::pit_model::PitModel;

/// What runs beside the desk, stopped together (see [`LivePit::stop`]).
pub(crate) struct Devices {
    pub(crate) monitor: Monitor,
    #[cfg(feature = "demo")]
    pub(crate) sims: Vec<SimDevice>,
    /// Replication to the central database, when the pit definition names one.
    pub(crate) replicator: Option<pitwatch_sync::Replicator>,
    pub(crate) fold: JoinHandle<()>,
}

/// The running pit.
pub struct LivePit {
    /// The tables running now, and those disabled: the start's, then each reload's.
    running: Mutex<PitConfig>,
    /// Held while the pit is set up (a reload, a table added): one change at a time.
    configuring: Mutex<()>,
    /// One tile per table; the fold thread holds it too.
    model: Arc<Mutex<PitModel>>,
    /// The window's updates (a sender takes no lock: the model's orders them where it matters).
    updates: Sender<PitUpdate>,
    /// `None` once stopped.
    devices: Mutex<Option<Devices>>,
}

impl LivePit {
    /// The pit running `running`, its model shared with the fold thread among `devices`.
    pub(crate) fn new(
        running: PitConfig,
        model: Arc<Mutex<PitModel>>,
        updates: Sender<PitUpdate>,
        devices: Devices,
    ) -> LivePit {
        LivePit {
            running: Mutex::new(running),
            configuring: Mutex::default(),
            model,
            updates,
            devices: Mutex::new(Some(devices)),
        }
    }

    /// The tables running now, held until the guard is dropped.
    pub(crate) fn running(&self) -> MutexGuard<'_, PitConfig> {
        lock(&self.running)
    }

    /// Held while the pit is set up (a reload, a table added, edited or retired): taken first.
    pub(crate) fn one_change_at_a_time(&self) -> MutexGuard<'_, ()> {
        lock(&self.configuring)
    }

    /// The live model, held until the guard is dropped. An update sent while it is held is in
    /// order with the fold thread's (which sends its tiles under it too).
    pub(crate) fn model(&self) -> MutexGuard<'_, PitModel> {
        lock(&self.model)
    }

    /// Sends `update` to the window (nothing happens once the window is gone).
    pub(crate) fn send(&self, update: PitUpdate) {
        let _ = self.updates.send(update);
    }

    /// Runs `f` on the monitor, held meanwhile (a reload holds it throughout); `conflict` once
    /// monitoring has stopped.
    pub(crate) fn with_monitor<R>(
        &self,
        f: impl FnOnce(&mut Monitor) -> Result<R, ApiError>,
    ) -> Result<R, ApiError> {
        let mut devices = lock(&self.devices);
        let devices = devices
            .as_mut()
            .ok_or_else(|| ApiError::new(ErrorCode::Conflict, "monitoring has stopped"))?;
        f(&mut devices.monitor)
    }

    /// Stops replication, the simulated devices, the monitor (which records the ends of the
    /// sessions) and the fold thread, in that order. Idempotent.
    pub(crate) fn stop(&self) {
        let Some(devices) = lock(&self.devices).take() else {
            return;
        };
        if let Some(replicator) = devices.replicator {
            replicator.stop();
        }
        #[cfg(feature = "demo")]
        for sim in devices.sims {
            let _ = sim.stop();
        }
        let _ = devices.monitor.stop();
        let _ = devices.fold.join();
    }
}
