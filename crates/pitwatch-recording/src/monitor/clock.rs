//! The writer's part in clock truth: when the host clock's watch says a sample is due (the
//! first, a change of judgement, or a minute on), the sample is written as a chained fact in a
//! transaction of its own (signed like every other), and once it is on record a change of the
//! clock's state is published ([`MonitorEvent::Clock`]). Nothing is sampled while recording is
//! degraded: the sample would only wait behind the backlog, and is taken when it is written.

use super::*;

impl Writer {
    /// Writes the host clock's sample when one is due (see the module's description).
    pub(super) fn sample_clock(&mut self) {
        if self.trouble.is_some() || self.flight.is_some() {
            return;
        }
        let now = Instant::now();
        let Some(sample) = self.clock_watch.due(now, self.clock.now()) else {
            return;
        };
        let Some(store) = self.store.as_mut() else {
            return;
        };
        let (key, value) = sample.fact();
        let written = store.batch(sample.at).and_then(|mut batch| {
            batch.set_meta(&key, &value)?;
            batch.commit()
        });
        match written {
            Ok(()) => {
                if let Some(state) = self.clock_watch.written(sample, now) {
                    self.publisher.publish(MonitorEvent::Clock(state));
                }
            }
            // Not on record: the watch offers it again at its next check.
            Err(e) => self.publisher.publish(MonitorEvent::Failed {
                table: None,
                message: format!("the host clock's sample was not recorded: {e}"),
            }),
        }
    }
}
