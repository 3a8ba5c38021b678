//! The host clock's synchronisation state as the kernel keeps it: `adjtimex(2)` with no
//! modes asked for (a read, never a change), the one system call in Pitwatch outside the
//! standard library. What it says is judged elsewhere (`pitwatch_recording::clock`); this module
//! only reads the kernel's figures ([`KernelClockState`]) so that the judgement stays a pure
//! function tested with raw values.
//!
//! The crate keeps `unsafe_code` denied; the call below is the only place that allows it.

/// The kernel's NTP state as `adjtimex(2)` returned it, unjudged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelClockState {
    /// The call's return value: the clock state (`TIME_OK` 0 … `TIME_ERROR` 5).
    pub state: i32,
    /// `status`: the `STA_*` bits (`STA_UNSYNC` 0x40: not synchronised).
    pub status: i32,
    /// `esterror`: the estimated error, in microseconds.
    pub esterror_us: i64,
    /// `maxerror`: the maximum error, in microseconds.
    pub maxerror_us: i64,
    /// `offset`: the last offset the synchronisation daemon gave the kernel, in microseconds
    /// (nanoseconds in the kernel when `STA_NANO` is set; converted here).
    pub offset_us: i64,
}

/// `STA_UNSYNC`: the clock is not synchronised.
pub const STA_UNSYNC: i32 = 0x0040;
/// `STA_NANO`: `offset` is in nanoseconds.
pub const STA_NANO: i32 = 0x2000;
/// `TIME_ERROR`: the clock is not synchronised (the call's return value).
pub const TIME_ERROR: i32 = 5;

/// Reads the kernel's clock state (Linux); elsewhere an error saying it is not available.
#[cfg(target_os = "linux")]
// `c_long` is `i64` on 64-bit targets only: the conversions are needed elsewhere.
#[allow(clippy::useless_conversion)]
pub fn kernel_clock_state() -> std::io::Result<KernelClockState> {
    // SAFETY: `timex` is plain data, all-zero is a valid value of it, and `modes = 0` asks the
    // kernel only to fill it in; the pointer is to a live, exclusively borrowed local.
    #[allow(unsafe_code)]
    let (state, timex) = unsafe {
        let mut timex: libc::timex = std::mem::zeroed();
        timex.modes = 0;
        (libc::adjtimex(&mut timex), timex)
    };
    if state < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let status = timex.status;
    let offset = i64::from(timex.offset);
    Ok(KernelClockState {
        state,
        status,
        esterror_us: i64::from(timex.esterror),
        maxerror_us: i64::from(timex.maxerror),
        offset_us: if status & STA_NANO != 0 {
            offset / 1000
        } else {
            offset
        },
    })
}

/// Reads the kernel's clock state (Linux); elsewhere an error saying it is not available.
#[cfg(not(target_os = "linux"))]
pub fn kernel_clock_state() -> std::io::Result<KernelClockState> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "the kernel's clock state is read on Linux only",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn the_kernel_answers_a_read() {
        let state = kernel_clock_state().expect("adjtimex with no modes is allowed to anyone");
        assert!((0..=TIME_ERROR).contains(&state.state), "{state:?}");
        assert!(
            state.maxerror_us >= 0 && state.esterror_us >= 0,
            "{state:?}"
        );
    }
}
