//! `--sched-fifo PRIO`: real-time scheduling for the ticking thread, asked for and never
//! insisted on. The thread that calls [`request`] (the run's, which ticks) gets `SCHED_FIFO`
//! at the priority asked, and the process's memory is locked with
//! `mlockall(MCL_CURRENT | MCL_ONFAULT)`: pages already touched stay in RAM, and the rest are
//! locked as they are first touched (the tick timer reserves room for a day of samples; plain
//! `MCL_FUTURE` would fault all of it in at once). Either may be refused (no privilege, a low
//! `RLIMIT_RTPRIO` or `RLIMIT_MEMLOCK`); the run then goes on without it, and [`request`]
//! says which was refused, why, and what would grant it.

/// What became of one part of the request: `Ok` with what was granted, `Err` with why not.
pub type Outcome = Result<String, String>;

/// Asks for `SCHED_FIFO` at `priority` for the calling thread, then for locked memory.
pub fn request(priority: i32) -> [Outcome; 2] {
    [fifo(priority), lock()]
}

/// A resource limit: (soft, hard), `None` for unlimited.
#[cfg(target_os = "linux")]
fn limit(resource: libc::__rlimit_resource_t) -> (Option<u64>, Option<u64>) {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given, which lives for the call.
    unsafe { libc::getrlimit(resource, &mut r) };
    // rlim_t is 32 bits on armv7.
    #[allow(clippy::unnecessary_cast)]
    let finite = |v: libc::rlim_t| (v != libc::RLIM_INFINITY).then_some(v as u64);
    (finite(r.rlim_cur), finite(r.rlim_max))
}

#[cfg(target_os = "linux")]
fn fifo(priority: i32) -> Outcome {
    // SAFETY: plain queries of constants.
    let (min, max) = unsafe {
        (
            libc::sched_get_priority_min(libc::SCHED_FIFO),
            libc::sched_get_priority_max(libc::SCHED_FIFO),
        )
    };
    if !(min..=max).contains(&priority) {
        return Err(format!(
            "SCHED_FIFO priority {priority} does not exist; priorities go from {min} to {max}"
        ));
    }
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: the parameter lives for the call; pid 0 is the calling thread.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } == 0 {
        return Ok(format!(
            "the tick loop runs at SCHED_FIFO priority {priority}"
        ));
    }
    let e = std::io::Error::last_os_error();
    let rtprio = match limit(libc::RLIMIT_RTPRIO).0 {
        Some(n) => n.to_string(),
        None => "unlimited".into(),
    };
    Err(format!(
        "SCHED_FIFO priority {priority} was refused ({e}; RLIMIT_RTPRIO is {rtprio}): the run goes on at normal priority; run it as root, give the binary CAP_SYS_NICE (`sudo setcap cap_sys_nice,cap_ipc_lock+ep affect`), or raise the limit (`LimitRTPRIO={priority}` in its systemd unit)"
    ))
}

/// The process's virtual size in bytes (what `mlockall(MCL_CURRENT)` must fit in the limit).
#[cfg(target_os = "linux")]
fn virtual_size() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(target_os = "linux")]
fn lock() -> Outcome {
    // SAFETY: mlockall takes flags only.
    if unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_ONFAULT) } == 0 {
        return Ok("memory is locked (mlockall, MCL_CURRENT | MCL_ONFAULT)".into());
    }
    let e = std::io::Error::last_os_error();
    let mib = |b: u64| format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0));
    let memlock = match limit(libc::RLIMIT_MEMLOCK).0 {
        Some(b) => mib(b),
        None => "unlimited".into(),
    };
    let size = virtual_size().map_or(String::new(), |b| format!(", the process maps {}", mib(b)));
    Err(format!(
        "memory was not locked ({e}; RLIMIT_MEMLOCK is {memlock}{size}): pages may be swapped out and a tick wait for them; run it as root, give the binary CAP_IPC_LOCK, or raise the limit (`ulimit -l unlimited`, `LimitMEMLOCK=infinity` in its systemd unit)"
    ))
}

#[cfg(not(target_os = "linux"))]
fn fifo(priority: i32) -> Outcome {
    Err(format!(
        "SCHED_FIFO priority {priority}: real-time scheduling is asked for on Linux only; the run goes on at normal priority"
    ))
}

#[cfg(not(target_os = "linux"))]
fn lock() -> Outcome {
    Err("memory was not locked: mlockall is used on Linux only".into())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_priority_that_does_not_exist_is_said_and_nothing_changes() {
        let e = fifo(1000).unwrap_err();
        assert!(e.contains("priorities go from 1 to 99"), "{e}");
        // SAFETY: a query.
        assert_eq!(unsafe { libc::sched_getscheduler(0) }, libc::SCHED_OTHER);
    }
}
