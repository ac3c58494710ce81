//! Stopping a run from outside: a caller that runs simulations on a thread of its own
//! (the Python package does, so that Ctrl-C and progress stay responsive) installs a flag
//! on that thread with [`on_this_thread`]; setting the flag makes every run on the thread
//! stop at its next progress point with [`SimError::Interrupted`](crate::SimError), and
//! every later run on it stop before it starts.
//!
//! The flag is per thread, so runs on other threads are not touched; a thread without a
//! flag is never interrupted. Progress points come every 65,536 completed requests, so a
//! run stops within milliseconds.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

thread_local! {
    static FLAG: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs on this thread stop once `flag` is set (replacing any flag installed before).
pub fn on_this_thread(flag: Arc<AtomicBool>) {
    FLAG.with(|f| *f.borrow_mut() = Some(flag));
}

/// Whether this thread's runs have been told to stop.
pub fn requested() -> bool {
    FLAG.with(|f| f.borrow().as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_thread_holding_a_set_flag_is_interrupted() {
        let flag = Arc::new(AtomicBool::new(false));
        assert!(!requested());
        on_this_thread(flag.clone());
        assert!(!requested());
        flag.store(true, Ordering::Relaxed);
        assert!(requested());
        assert!(!std::thread::spawn(requested).join().unwrap());
    }
}
