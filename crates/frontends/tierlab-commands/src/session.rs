//! A command run inside another program (the Python package) rather than from a shell:
//! on the thread that runs it, what the command would print to stdout is kept in memory,
//! its progress bars are drawn nowhere but can be read by the caller, and a flag the
//! caller sets stops its simulations (`tierlab_engine::interrupt`).
//!
//! Outside a session (the `tierlab` binary) [`stdout`] is the process's stdout and bars
//! draw on a terminal as usual.

use indicatif::ProgressBar;
use std::cell::RefCell;
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// What the caller of a session shares with the thread running the command.
#[derive(Default)]
pub struct Shared {
    /// Every progress bar the command has made, oldest first.
    pub bars: Mutex<Vec<ProgressBar>>,
    /// Set to stop the command's simulations.
    pub stop: Arc<AtomicBool>,
}

struct Session {
    shared: Arc<Shared>,
    out: Vec<u8>,
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

/// Run `f` on this thread as a session: returns what it wrote to [`stdout`] with its result.
pub fn run<T>(shared: Arc<Shared>, f: impl FnOnce() -> T) -> (T, Vec<u8>) {
    tierlab_engine::interrupt::on_this_thread(shared.stop.clone());
    SESSION.with(|s| *s.borrow_mut() = Some(Session { shared, out: Vec::new() }));
    let result = f();
    let out = SESSION.with(|s| s.borrow_mut().take()).map(|s| s.out).unwrap_or_default();
    (result, out)
}

/// Whether this thread runs a session.
pub fn active() -> bool {
    SESSION.with(|s| s.borrow().is_some())
}

/// Hand `bar` to the session's caller, if there is a session.
pub fn register(bar: &ProgressBar) {
    SESSION.with(|s| {
        if let Some(s) = s.borrow().as_ref() {
            if let Ok(mut bars) = s.shared.bars.lock() {
                bars.push(bar.clone());
            }
        }
    });
}

/// Where a command writes its report: the process's stdout, or the session's buffer.
pub fn stdout() -> Box<dyn Write> {
    if active() {
        Box::new(SessionOut)
    } else {
        Box::new(std::io::stdout().lock())
    }
}

struct SessionOut;

impl Write for SessionOut {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        SESSION.with(|s| match s.borrow_mut().as_mut() {
            Some(s) => {
                s.out.extend_from_slice(buf);
                Ok(buf.len())
            }
            None => std::io::stdout().write(buf),
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_keeps_its_output_and_bars_and_ends_with_the_call() {
        let shared = Arc::new(Shared::default());
        let (v, out) = run(shared.clone(), || {
            write!(stdout(), "hello ").unwrap();
            write!(stdout(), "world").unwrap();
            register(&ProgressBar::new(3));
            assert!(active());
            7
        });
        assert_eq!((v, out.as_slice()), (7, b"hello world".as_slice()));
        assert_eq!(shared.bars.lock().unwrap().len(), 1);
        assert!(!active());
    }
}
