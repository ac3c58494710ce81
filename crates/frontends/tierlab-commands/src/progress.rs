//! What a command writes besides its report text: progress bars on a terminal (silence
//! when piped), JSON, CSV fields and report files.

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::path::Path;

/// Whether to draw progress: only when stderr is a terminal, never under CI, so that
/// piped or scripted output stays clean, and never in a [`session`](crate::session), whose
/// caller reads the bars and shows them its own way.
fn show() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none() && !crate::session::active()
}

/// A spinner counting requests, drawn on stderr where progress is shown.
pub fn requests_bar(what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, if show() { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() });
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg}: {human_pos} requests ({per_sec}, {elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_message(what.to_string());
    crate::session::register(&bar);
    bar
}

/// A bar counting finished runs out of `total`, drawn on stderr where progress is shown.
pub fn runs_bar(total: usize) -> ProgressBar {
    counting_bar(total as u64, "{spinner} [{bar:24}] {pos}/{len} runs ({elapsed}, ETA {eta}) {msg}")
}

/// A bar counting seconds of simulated time out of `total_s`, with the time left, drawn
/// on stderr where progress is shown.
pub fn simulated_bar(total_s: u64) -> ProgressBar {
    counting_bar(total_s, "{spinner} [{bar:24}] {pos}/{len} s simulated ({percent} %, {elapsed}, ETA {eta}) {msg}")
}

fn counting_bar(total: u64, template: &str) -> ProgressBar {
    let show = show();
    let bar = ProgressBar::with_draw_target(Some(total), if show { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() });
    bar.set_style(ProgressStyle::with_template(template).map(|s| s.progress_chars("=> ")).unwrap_or_else(|_| ProgressStyle::default_bar()));
    if show {
        bar.enable_steady_tick(std::time::Duration::from_millis(250));
    }
    crate::session::register(&bar);
    bar
}

/// Take `bar` off the terminal. Where no bar was drawn because stderr is not a terminal
/// (piped, logged), say in one line on stderr what `command` did and how long it took,
/// e.g. `tierlab array compare: 13/13 runs in 2 min 41 s` or `tierlab replicate run:
/// 302400 requests in 12.3 s`; nothing in a session, whose caller reads the bars itself.
pub fn finish(bar: &ProgressBar, command: &str) {
    finish_counting(bar, command, "runs");
}

/// [`finish`] for a bar that counts `unit` out of a total (a [`simulated_bar`]: "s
/// simulated").
pub fn finish_counting(bar: &ProgressBar, command: &str, unit: &str) {
    bar.finish_and_clear();
    if std::io::stderr().is_terminal() || crate::session::active() {
        return;
    }
    eprintln!("{}", summary(command, bar.position(), bar.length().map(|t| (t, unit)), bar.elapsed()));
}

fn summary(what: &str, done: u64, total: Option<(u64, &str)>, took: std::time::Duration) -> String {
    let count = match total {
        Some((total, unit)) => format!("{done}/{total} {unit}"),
        None => format!("{done} requests"),
    };
    let secs = took.as_secs_f64();
    let took = if secs < 60.0 { format!("{secs:.1} s") } else { format!("{} min {:02} s", took.as_secs() / 60, took.as_secs() % 60) };
    format!("tierlab {what}: {count} in {took}")
}

/// `value` as pretty-printed JSON and a newline.
pub fn write_json(out: &mut impl Write, value: &impl Serialize) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

/// A report written to the file `path` (created or replaced).
pub fn write_file(path: &Path, contents: impl AsRef<[u8]>) -> Result<()> {
    std::fs::write(path, contents).with_context(|| format!("cannot write {}", path.display()))
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piped_run_is_summed_up_in_one_line() {
        let t = std::time::Duration::from_secs(161);
        assert_eq!(summary("array compare", 13, Some((13, "runs")), t), "tierlab array compare: 13/13 runs in 2 min 41 s");
        assert_eq!(summary("replicate run", 7200, Some((7200, "s simulated")), t), "tierlab replicate run: 7200/7200 s simulated in 2 min 41 s");
        assert_eq!(summary("replicate run", 302400, None, std::time::Duration::from_millis(12_340)), "tierlab replicate run: 302400 requests in 12.3 s");
    }

    #[test]
    fn json_ends_with_a_newline() {
        let mut out = Vec::new();
        write_json(&mut out, &[1, 2]).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "[\n  1,\n  2\n]\n");
    }
}
