//! The study commands run in-process, for the Python package: called by path and named
//! parameters ([`Job::call`]), read by the same definitions, defaults and checks as the
//! binary's command line, and giving the same report, kept in memory instead of printed.
//!
//! A [`Job`] runs one command on a thread of its own so that its caller stays free
//! to draw progress (read with [`Job::progress`]), to notice Ctrl-C and to stop the run
//! ([`Job::stop`]). A failure comes back as a [`Failure`] that says what kind it is and,
//! where the error names one, the file, line and field at fault.

use crate::session::{self, Shared};
use clap::Parser;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;
use tierlab_types::SourceLocation;

pub use crate::describe::{describe, CommandSpec, ParamKind, ParamSpec};

/// What kind of failure, so a caller can raise the matching exception.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The command line itself: an unknown option, a value that does not parse.
    Usage,
    /// A trace could not be read: its file, line and field are given where known.
    Trace,
    /// A configuration, catalog or parameter file is wrong: file, line and key.
    Config,
    /// The run was stopped through [`Job::stop`].
    Interrupted,
    /// Anything else, with the message the command line prints.
    Other,
}

/// Why a command failed: its kind, the whole message (every cause, `: `-joined, as the
/// binary prints them) and the place in a file it names, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    pub location: Option<SourceLocation>,
}

/// A command's outcome: the bytes it wrote to stdout, or why it failed.
pub type Outcome = Result<Vec<u8>, Failure>;

/// One progress bar of a running command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarState {
    pub message: String,
    pub position: u64,
    /// Known for bars of runs, absent for counts of requests.
    pub length: Option<u64>,
}

/// A command running on its own thread. Dropped before [`Job::finish`], it stops the
/// command (which then ends at its next progress point, unwatched).
pub struct Job {
    shared: Arc<Shared>,
    done: Arc<(Mutex<bool>, Condvar)>,
    handle: Option<JoinHandle<Outcome>>,
}

impl Job {
    /// Start `tierlab ARGS…` (`args` without the program name).
    pub fn start(args: Vec<String>) -> std::io::Result<Job> {
        Self::spawn(move || run_here(args))
    }

    /// Start the command at `path` (`["array", "simulate"]`) with `params` by name, its
    /// report as JSON where it has one (see [`params`](crate::params) for how values are
    /// read). A call the command's definitions refuse is a [`FailureKind::Usage`] failure.
    pub fn call(path: &[String], params: &serde_json::Map<String, serde_json::Value>) -> Result<Job, Failure> {
        let spec = describe(path).ok_or_else(|| Failure { kind: FailureKind::Usage, message: format!("no command `tierlab {}`", path.join(" ")), location: None })?;
        let line = crate::params::call_line(&spec, params)?;
        Self::spawn(move || {
            // The whole call line, so that the files written for its tables live until the
            // command has read them.
            let line = line;
            run_here(line.args.clone())
        })
            .map_err(|e| Failure { kind: FailureKind::Other, message: format!("cannot start a thread: {e}"), location: None })
    }

    /// A job that panics with `message`: for the Python package's tests, which check that
    /// a panic becomes an error and the interpreter lives on.
    #[doc(hidden)]
    pub fn spawn_panic(message: String) -> std::io::Result<Job> {
        Self::spawn(move || panic!("{message}"))
    }

    fn spawn(work: impl FnOnce() -> Result<(), Failure> + Send + 'static) -> std::io::Result<Job> {
        let shared = Arc::new(Shared::default());
        let done = Arc::new((Mutex::new(false), Condvar::new()));
        let (s, d) = (shared.clone(), done.clone());
        let handle = std::thread::Builder::new().name("tierlab-job".into()).stack_size(64 << 20).spawn(move || {
            // Marks the job done however it ends, a panic included.
            let done = Done(d);
            let (outcome, out) = session::run(s.clone(), work);
            done.settle(&s.stop, outcome.map(|()| out))
        })?;
        Ok(Job { shared, done, handle: Some(handle) })
    }

    /// Wait up to `timeout` for the command to end; true once it has.
    pub fn wait(&self, timeout: Duration) -> bool {
        let (lock, cvar) = &*self.done;
        match lock.lock() {
            Ok(finished) => match cvar.wait_timeout_while(finished, timeout, |f| !*f) {
                Ok((finished, _)) => *finished,
                Err(_) => true,
            },
            Err(_) => true,
        }
    }

    /// The command's progress bars, oldest first.
    pub fn progress(&self) -> Vec<BarState> {
        let bars = match self.shared.bars.lock() {
            Ok(b) => b.clone(),
            Err(_) => return Vec::new(),
        };
        bars.iter().map(|b| BarState { message: b.message(), position: b.position(), length: b.length() }).collect()
    }

    /// Stop the command: its simulations stop at their next progress point (a run not yet
    /// begun never starts), and [`Job::finish`] gives an [`FailureKind::Interrupted`]
    /// failure whatever the command did meanwhile. True if the job was stopped; false if it
    /// had already ended, in which case `finish` gives its outcome.
    ///
    /// The stop and the job's end are decided under one lock, so exactly one of them comes
    /// first: a stop can never be lost nor a stopped job end as a finished one.
    pub fn stop(&self) -> bool {
        let (lock, _) = &*self.done;
        let finished = lock.lock().unwrap_or_else(PoisonError::into_inner);
        if *finished {
            return false;
        }
        self.shared.stop.store(true, Ordering::SeqCst);
        true
    }

    /// Wait for the command to end and give its outcome.
    pub fn finish(mut self) -> Outcome {
        let Some(handle) = self.handle.take() else {
            return Err(Failure { kind: FailureKind::Other, message: "the job has already finished".into(), location: None });
        };
        handle.join().unwrap_or_else(|p| {
            let what = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default();
            Err(Failure { kind: FailureKind::Other, message: format!("the command stopped on an internal error (a bug in tierlab, please report it): {what}"), location: None })
        })
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        // Nobody will read the outcome (the caller was interrupted between starting the
        // job and waiting for it, say): stop the work rather than let it run on unseen.
        if self.handle.is_some() {
            self.stop();
        }
    }
}

/// The failure of a job that was stopped.
fn interrupted() -> Failure {
    Failure { kind: FailureKind::Interrupted, message: "interrupted".into(), location: None }
}

/// Sets a job's done flag when dropped.
struct Done(Arc<(Mutex<bool>, Condvar)>);

impl Done {
    /// The job's outcome, decided under the done lock that [`Job::stop`] takes: a stop that
    /// came first turns any outcome into [`FailureKind::Interrupted`] (a command may finish
    /// a pass that does not look at the stop flag, or a stop may come after the last
    /// progress point); a stop that comes later finds the job done and changes nothing.
    fn settle(self, stop: &std::sync::atomic::AtomicBool, outcome: Outcome) -> Outcome {
        let (lock, cvar) = &*self.0;
        let mut finished = lock.lock().unwrap_or_else(PoisonError::into_inner);
        let outcome = if stop.load(Ordering::SeqCst) { Err(interrupted()) } else { outcome };
        *finished = true;
        drop(finished);
        cvar.notify_all();
        outcome
    }
}

impl Drop for Done {
    fn drop(&mut self) {
        let (lock, cvar) = &*self.0;
        match lock.lock() {
            Ok(mut finished) => *finished = true,
            Err(poisoned) => *poisoned.into_inner() = true,
        }
        cvar.notify_all();
    }
}

/// Run `tierlab ARGS…` on this thread and return what it printed (blocking).
pub fn run(args: Vec<String>) -> Outcome {
    let (outcome, out) = session::run(Arc::new(Shared::default()), || run_here(args));
    outcome.map(|()| out)
}

fn run_here(args: Vec<String>) -> Result<(), Failure> {
    let argv = std::iter::once("tierlab".to_string()).chain(args);
    let parsed = match crate::Commands::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            let text = e.render().to_string();
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand) {
                use std::io::Write;
                return session::stdout().write_all(text.as_bytes()).map_err(|e| failure(&e.into()));
            }
            return Err(Failure { kind: FailureKind::Usage, message: text.trim_end().trim_start_matches("error: ").to_string(), location: None });
        }
    };
    crate::execute(parsed.command).map_err(|e| failure(&e))
}

/// Open the trace at `path` for streaming, reading it as the commands do with the trace
/// parameters `params` by name (`format`, `sort`, `volume`, `start_s`, `end_s`, `speed`,
/// `max_requests`).
pub fn open_trace(path: &std::path::Path, params: &serde_json::Map<String, serde_json::Value>) -> Result<tierlab_trace::TraceReader, Failure> {
    #[derive(Parser)]
    #[command(name = "trace options")]
    struct TraceFlags {
        #[command(flatten)]
        input: crate::args::TraceInput,
    }
    let spec = crate::describe::spec_of(&<TraceFlags as clap::CommandFactory>::command(), &[]);
    let line = crate::params::call_line(&spec, params)?;
    let flags = TraceFlags::try_parse_from(std::iter::once("trace".to_string()).chain(line.args.iter().cloned()))
        .map_err(|e| Failure { kind: FailureKind::Usage, message: e.render().to_string().trim_end().trim_start_matches("error: ").to_string(), location: None })?;
    flags.input.open(path).map_err(|e| failure(&e))
}

/// A JSON value (a configuration given as a Python dict) as a TOML document, for the
/// commands that read configuration files.
pub fn json_to_toml(json: &str) -> Result<String, Failure> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| Failure { kind: FailureKind::Usage, message: format!("not a configuration: {e}"), location: None })?;
    table_to_toml(&value)
}

/// A configuration given as a JSON value (a dict's parameter) as a TOML document.
pub(crate) fn table_to_toml(table: &serde_json::Value) -> Result<String, Failure> {
    let usage = |message: String| Failure { kind: FailureKind::Usage, message, location: None };
    let value = toml::Value::try_from(table).map_err(|e| usage(format!("not a configuration: {e}")))?;
    if !value.is_table() {
        return Err(usage("a configuration must be a table (a dict), not a single value".into()));
    }
    toml::to_string(&value).map_err(|e| usage(format!("cannot write the configuration as TOML: {e}")))
}

/// `e` as a [`Failure`]: its kind and location from the first cause that has them; the
/// message joins the causes with `: `, leaving out a cause its predecessor already quotes.
pub fn failure(e: &anyhow::Error) -> Failure {
    let mut message = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !message.contains(&text) {
            if !message.is_empty() {
                message.push_str(": ");
            }
            message.push_str(&text);
        }
    }
    let mut kind = FailureKind::Other;
    let mut location = None;
    for cause in e.chain() {
        if let Some(tierlab_engine::SimError::Interrupted) = cause.downcast_ref::<tierlab_engine::SimError>() {
            return Failure { kind: FailureKind::Interrupted, message, location: None };
        }
        if kind == FailureKind::Other {
            if let Some((k, at)) = classify(cause) {
                (kind, location) = (k, at);
            }
        }
    }
    Failure { kind, message, location }
}

/// The kind of failure `cause` is, and the place it names. A simulation's request source
/// failing (`SimError::Source`) is the reader's error inside it.
fn classify(cause: &(dyn std::error::Error + 'static)) -> Option<(FailureKind, Option<SourceLocation>)> {
    if let Some(tierlab_engine::SimError::Source(inner)) = cause.downcast_ref::<tierlab_engine::SimError>() {
        return classify(inner.as_ref());
    }
    if let Some(t) = cause.downcast_ref::<tierlab_trace::TraceError>() {
        let at = match t {
            tierlab_trace::TraceError::Parse { location, .. } => Some(location.clone()),
            tierlab_trace::TraceError::Io { file, line, .. } => Some(SourceLocation { file: file.clone(), line: *line, field: String::new() }),
            tierlab_trace::TraceError::Input { file, .. } => Some(SourceLocation { file: file.clone(), line: 0, field: String::new() }),
            _ => None,
        };
        return Some((FailureKind::Trace, at));
    }
    if let Some(c) = cause.downcast_ref::<tierlab_config::ConfigError>() {
        return Some((FailureKind::Config, Some(c.location.clone())));
    }
    if let Some(d) = cause.downcast_ref::<tierlab_disksim::Error>() {
        return Some((FailureKind::Config, Some(d.location.clone())));
    }
    if cause.downcast_ref::<clap::Error>().is_some() || names_flags(&cause.to_string()) {
        return Some((FailureKind::Usage, None));
    }
    None
}

/// Whether `message` is about the values of flags, as every check of a command's options
/// words it: `--flag: expected …`, or `--a, --b: …` for values that conflict.
fn names_flags(message: &str) -> bool {
    let Some((flags, _)) = message.split_once(": ") else { return false };
    flags.split(", ").all(|f| f.strip_prefix("--").is_some_and(|name| !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_command_gives_the_json_the_binary_prints() {
        let out = run(args(&["workload", "show", "--json"])).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert!(v.get("requests").is_some(), "{v}");
    }

    #[test]
    fn help_is_output_and_a_bad_flag_is_a_usage_failure() {
        let help = String::from_utf8(run(args(&["simulate", "--help"])).unwrap()).unwrap();
        assert!(help.contains("--trace"), "{help}");
        let f = run(args(&["simulate", "--no-such-flag"])).unwrap_err();
        assert_eq!(f.kind, FailureKind::Usage);
        assert!(f.message.contains("--no-such-flag"), "{}", f.message);
    }

    /// A value out of its range, found once the command runs (not by the parser), is a
    /// usage failure as a malformed flag is: Python raises `UsageError`, a `ValueError`.
    #[test]
    fn an_out_of_range_value_found_while_running_is_a_usage_failure() {
        for command in [&["plan", "--stats", "hybridstore-t4.3-tpch", "--scale", "1e300"][..], &["simulate", "--measure", "--target-interval", "-1"][..]] {
            let f = run(args(command)).unwrap_err();
            assert_eq!(f.kind, FailureKind::Usage, "{command:?}: {f:?}");
        }
        assert!(names_flags("--batch-requests, --target-interval, --run-requests: measurement `max_requests`: expected room"));
        assert!(!names_flags("cannot read trace --weird: no such file"));
        assert!(!names_flags("request #14 addresses bytes"));
    }

    #[test]
    fn a_bad_trace_line_is_a_trace_failure_with_its_place_read_alone_or_in_a_simulation() {
        let dir = std::env::temp_dir().join(format!("tierlab-api-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.disksim");
        std::fs::write(&path, "0.0 0 0 8 1\n1.0 0 8 8 1\n2.0 0 x 8 1\n").unwrap();
        let file = path.to_str().unwrap();
        let read = ["trace", "stats", file, "--format", "disksim-ms"];
        let simulate = ["simulate", "--trace", file, "--format", "disksim-ms", "--json"];
        let hybrid = ["simulate", "--trace", file, "--format", "disksim-ms", "--json", "--mode", "ssd-only"];
        for command in [&read[..], &simulate[..], &hybrid[..]] {
            let f = run(args(command)).unwrap_err();
            assert_eq!(f.kind, FailureKind::Trace, "{f:?}");
            let at = f.location.expect("the place");
            assert_eq!((at.file.as_str(), at.line), (file, 3), "{command:?}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_trace_opens_with_the_commands_flags_and_a_dict_becomes_toml() {
        let dir = std::env::temp_dir().join(format!("tierlab-api-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.disksim");
        std::fs::write(&path, "0.0 0 0 8 1\n1.0 0 8 8 0\n2.0 0 16 8 1\n").unwrap();
        let params = |v: serde_json::Value| v.as_object().cloned().unwrap_or_default();
        let n = open_trace(&path, &params(serde_json::json!({"format": "disksim-ms", "max_requests": 2}))).unwrap().count();
        assert_eq!(n, 2);
        assert_eq!(open_trace(&path, &params(serde_json::json!({"speed": "x"}))).err().map(|f| f.kind), Some(FailureKind::Usage));
        assert_eq!(json_to_toml(r#"{"a": {"b": [1, 2]}}"#).unwrap(), "[a]\nb = [1, 2]\n");
        assert!(json_to_toml("[1]").is_err());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_stop_after_the_last_progress_point_still_ends_interrupted() {
        // Work that never looks at the stop flag: a stop while it runs comes after its last
        // progress point, as a stop racing a run's end does.
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let job = Job::spawn(move || {
            go_rx.recv().ok();
            Ok(())
        })
        .unwrap();
        job.stop();
        go_tx.send(()).unwrap();
        assert!(job.wait(Duration::from_secs(60)));
        assert_eq!(job.finish().map_err(|f| f.kind), Err(FailureKind::Interrupted));
    }

    #[test]
    fn a_stop_after_the_job_ended_changes_nothing() {
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let job = Job::spawn(move || {
            go_rx.recv().ok();
            Ok(())
        })
        .unwrap();
        assert!(!job.wait(Duration::from_millis(1)));
        go_tx.send(()).unwrap();
        assert!(job.wait(Duration::from_secs(60)));
        assert!(!job.stop(), "the job had ended: nothing to stop");
        assert!(job.finish().is_ok());
    }

    #[test]
    fn a_job_dropped_before_it_is_waited_for_stops() {
        let (seen_tx, seen_rx) = std::sync::mpsc::channel::<bool>();
        let job = Job::spawn(move || {
            let start = std::time::Instant::now();
            while !tierlab_engine::interrupt::requested() && start.elapsed() < Duration::from_secs(30) {
                std::thread::sleep(Duration::from_millis(5));
            }
            seen_tx.send(tierlab_engine::interrupt::requested()).ok();
            Ok(())
        })
        .unwrap();
        drop(job);
        assert_eq!(seen_rx.recv_timeout(Duration::from_secs(60)), Ok(true), "the dropped job was told to stop");
    }

    #[test]
    fn a_call_gives_the_json_of_its_command_line() {
        let params = serde_json::json!({"r": 20.45, "rto_s": 100});
        let called = Job::call(&args(&["replicate", "plan"]), params.as_object().unwrap()).unwrap().finish().unwrap();
        let line = run(args(&["replicate", "plan", "--r", "20.45", "--rto-s", "100", "--json"])).unwrap();
        assert_eq!(String::from_utf8(called).unwrap(), String::from_utf8(line).unwrap());
        // A table is the TOML file the command reads, there for as long as the command runs.
        let shown = |params: serde_json::Value| -> serde_json::Value {
            let out = Job::call(&args(&["workload", "show"]), params.as_object().unwrap()).unwrap().finish().unwrap();
            serde_json::from_slice(&out).unwrap()
        };
        let mut spec = shown(serde_json::json!({}));
        spec["requests"] = serde_json::json!(1234);
        assert_eq!(shown(serde_json::json!({ "file": spec.clone() })), spec);
        let f = Job::call(&args(&["no-such"]), &serde_json::Map::new()).err().expect("no such command");
        assert_eq!(f.kind, FailureKind::Usage);
    }

    #[test]
    fn a_stopped_job_ends_interrupted() {
        let job = Job::start(args(&["simulate", "--json"])).unwrap();
        job.stop();
        assert!(job.wait(Duration::from_secs(60)));
        let f = job.finish().unwrap_err();
        assert_eq!(f.kind, FailureKind::Interrupted, "{f:?}");
    }
}

/// The design families with their colour in every report, so that the Python plots use
/// the same: (name as `--mode` and a report's `mode` give it, `#rrggbb`).
pub fn design_families() -> Vec<(&'static str, String)> {
    tierlab_render::charts::DESIGN_FAMILIES.iter().map(|(name, colour)| (*name, colour.hex())).collect()
}
