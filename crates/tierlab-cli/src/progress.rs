//! Progress bars on a terminal, silence when piped.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A spinner counting requests, drawn on stderr only when stderr is a terminal (and never
/// under CI), so that piped or scripted output stays clean.
pub fn requests_bar(what: &str) -> ProgressBar {
    let show = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
    let bar = ProgressBar::with_draw_target(None, if show { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() });
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg}: {human_pos} requests ({per_sec}, {elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_message(what.to_string());
    bar
}
