//! perfgate's region markers: only the code between [`start`] and [`stop`]
//! is counted when perfgate measures the program (docs/markers.md), with
//! either backend, as `PERFGATE_START()`/`PERFGATE_STOP()` of
//! `include/perfgate.h` do for C:
//!
//! ```no_run
//! let input = vec![1u64; 1000];              // not counted
//! perfgate_markers::start();
//! let sum: u64 = input.iter().sum();         // counted
//! perfgate_markers::stop();
//! println!("{sum}");
//! ```
//!
//! - valgrind backend: callgrind's START/STOP_INSTRUMENTATION client
//!   requests, written here in `asm!` (valgrind.h's magic sequence for
//!   x86-64), so nothing of valgrind is needed to build;
//! - perf backend: the control channel perfgate names in
//!   `PERFGATE_CTL_FD="ctl,ack"` (two pipes): `enable\n` or `disable\n` is
//!   written to ctl, and the marker returns when perfgate's `ack\n` arrives.
//!
//! Every use puts the `.note.perfgate` ELF note in the program, by which
//! perfgate knows to count the regions only. Outside perfgate the markers do
//! nothing: two environment lookups the first time, then a load and a
//! branch, plus the client request (a few instructions that change nothing).
//! `PERFGATE_MARKERS=0` turns them off. Regions are process-wide and do not
//! nest: start enables, stop disables. On targets other than x86-64 only the
//! perf backend sees the regions (the note says so, and the valgrind backend
//! refuses such a program rather than count it whole).

use std::fs::File;
use std::io::{Read, Write};
use std::mem::ManuallyDrop;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::io::FromRawFd;
use std::sync::OnceLock;

/// The note's type (include/perfgate.h: PERFGATE_NOTE_TYPE).
pub const NOTE_TYPE: u32 = 0x5047_0001;

/// callgrind's client requests (valgrind/callgrind.h): VG_USERREQ_TOOL_BASE('C','T') + 4 and + 5.
const CT_BASE: u64 = ((b'C' as u64) << 24) | ((b'T' as u64) << 16);
const START_INSTRUMENTATION: u64 = CT_BASE + 4;
const STOP_INSTRUMENTATION: u64 = CT_BASE + 5;

/// Emits the ELF note, with bit 0 of its descriptor set where the valgrind
/// client requests are compiled in. A copy per use is harmless.
#[inline(always)]
fn note() {
    unsafe {
        core::arch::asm!(
            ".pushsection .note.perfgate,\"a\",%note",
            ".balign 4",
            ".long 9",
            ".long 4",
            ".long {kind}",
            ".asciz \"perfgate\"",
            ".balign 4",
            ".long {valgrind}",
            ".popsection",
            kind = const NOTE_TYPE,
            valgrind = const cfg!(target_arch = "x86_64") as u32,
            options(nomem, nostack, preserves_flags)
        );
    }
}

/// A valgrind client request: `default` natively, valgrind's answer under
/// valgrind. The four rotations of rdi add up to 128 bits, leaving it as it
/// was; valgrind recognises them followed by `xchg rbx, rbx` and reads the
/// request from the array rax points to.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn client_request(request: u64, default: u64) -> u64 {
    let args: [u64; 6] = [request, 0, 0, 0, 0, 0];
    let result: u64;
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") default => result,
            in("rax") args.as_ptr(),
            options(nostack)
        );
    }
    result
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn client_request(_request: u64, default: u64) -> u64 {
    default
}

/// What the markers do in this process, looked up on first use.
struct State {
    on: bool,                       // false: PERFGATE_MARKERS=0, the whole program is counted
    channel: Option<(i32, i32)>,    // the control channel's ctl and ack fds
}

/// `fd` borrowed as a File, never closed.
fn borrowed(fd: i32) -> ManuallyDrop<File> {
    ManuallyDrop::new(unsafe { File::from_raw_fd(fd) })
}

fn is_fifo(fd: i32) -> bool {
    borrowed(fd).metadata().map(|m| m.file_type().is_fifo()).unwrap_or(false)
}

/// "ctl,ack": two fds of at most 65535 that are pipes; anything else is ignored.
fn parse_channel(s: &str) -> Option<(i32, i32)> {
    let (c, a) = s.split_once(',')?;
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(c) || !digits(a) {
        return None;
    }
    let (c, a): (u32, u32) = (c.parse().ok()?, a.parse().ok()?);
    if c > 65535 || a > 65535 {
        return None;
    }
    let (c, a) = (c as i32, a as i32);
    (is_fifo(c) && is_fifo(a)).then_some((c, a))
}

fn state() -> &'static State {
    static STATE: OnceLock<State> = OnceLock::new();
    STATE.get_or_init(|| State {
        on: std::env::var_os("PERFGATE_MARKERS").is_none_or(|m| m != "0"),
        channel: std::env::var("PERFGATE_CTL_FD").ok().and_then(|s| parse_channel(&s)),
    })
}

/// Sends `cmd` and waits for perfgate's ack (or for the channel to close:
/// perfgate went away, nothing left to tell).
fn send(st: &State, cmd: &[u8]) {
    if let Some((ctl, ack)) = st.channel {
        if borrowed(ctl).write_all(cmd).is_ok() {
            let mut buf = [0u8; 4];
            let _ = borrowed(ack).read_exact(&mut buf);
        }
    }
}

/// Starts a region: what follows is counted, until [`stop`].
#[inline(never)]
pub fn start() {
    note();
    let st = state();
    if !st.on {
        return;
    }
    send(st, b"enable\n");
    client_request(START_INSTRUMENTATION, 0);
}

/// Ends a region: what follows is not counted.
#[inline(never)]
pub fn stop() {
    note();
    let st = state();
    if !st.on {
        return;
    }
    client_request(STOP_INSTRUMENTATION, 0);
    send(st, b"disable\n");
}

/// Counts `f` alone: `start()`, `f()`, `stop()`.
pub fn region<T>(f: impl FnOnce() -> T) -> T {
    start();
    let r = f();
    stop();
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_perfgate_the_markers_do_nothing() {
        // No channel here (the test runner names none): both return at once.
        assert_eq!(region(|| 42), 42);
        start();
        stop();
    }

    #[test]
    fn a_channel_must_name_two_pipes() {
        assert_eq!(parse_channel("x"), None);
        assert_eq!(parse_channel("7"), None);
        assert_eq!(parse_channel("-1,2"), None);
        assert_eq!(parse_channel("70000,1"), None);
        assert_eq!(parse_channel("0,1 "), None);
        // 0 is not a pipe under cargo test (stdin is /dev/null or a terminal).
        let zero = parse_channel("0,0");
        assert!(zero.is_none() || is_fifo(0));
    }

    #[test]
    fn natively_a_client_request_returns_its_default() {
        assert_eq!(client_request(START_INSTRUMENTATION + 100, 7), 7);
    }
}
