//! The allocator's settings for a long-lived server (and every other command: `affect`'s
//! `main` sets them too).
//!
//! glibc's `malloc` serves a block above its mmap threshold (128 KB) with a mapping of its
//! own, returned to the system when freed, and raises the threshold to the size of every
//! such block freed (up to 32 MB). A server that checks a large document again and again
//! frees large blocks after every check, so its later analyses were served from the heap,
//! where freed space is fragmented and kept: a session on 50,000 declarations peaked at
//! 300 MB resident for 175 MB allocated. Setting the threshold fixes it where it starts
//! (the documented effect of setting it: the dynamic adjustment is off), and the session
//! peaks at 200 MB.

/// Keeps glibc's mmap threshold at its initial 128 KB (nothing to do elsewhere).
pub fn fixed_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes the allocator's parameters; called before the server
    // starts its threads.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}
