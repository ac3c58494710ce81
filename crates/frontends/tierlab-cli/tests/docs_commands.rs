//! Every `tierlab` command in the code blocks of README.md and docs/*.md, run as written —
//! or, where the run is long, as the short variant `SHORT` gives — in a scratch directory
//! that sees the repository's files and `../shared` as the docs do. A command that fails,
//! or panics, fails the test with its file and line.
//!
//! What is not run (`SKIPPED`, and lines that do not start with `tierlab`):
//! - `tierlab serve`, `ctl`, `fsck`, `hdd probe --path fuse/nbd`: a block device served over
//!   NBD until stopped, and the tools that talk to it; tests/serve_*.rs and
//!   tests/probe_served.rs run them against real NBD tools.
//! - `tierlab sweep`: Ray tasks started from the Python package; python/tests run it.
//! - Lines that are not a `tierlab` command: `cargo run`, `bash .ci/run` (the build and
//!   this very suite), `scripts/*` (benchmarks and reproductions of many minutes),
//!   `pip`/`python` (the Python package, tested by python/tests), `nbdinfo`, `mkdir`,
//!   `nbdfuse` and the shell loop of docs/trends.md (release builds of a full study).
//!
//! Optional parts written `[--flag value]` are run included, with the first of the
//! alternatives `a|b|c`. Placeholder inputs the docs name (`trace.csv`, `ids.bin`,
//! `w44.oracleGeneral.bin`) are made in the scratch directory. Commands reading
//! `../shared` (or a placeholder made from it) are skipped, saying so, where it is absent.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Commands not run here, by prefix, and why (see the module documentation).
const SKIPPED: [(&str, &str); 5] = [
    ("tierlab serve", "serves a block device until stopped (tests/serve_*.rs)"),
    ("tierlab ctl", "talks to a running server (tests/serve_*.rs)"),
    ("tierlab fsck", "checks a served drive's stores (tests/serve_*.rs)"),
    ("tierlab hdd probe --path", "probes a device served through nbdfuse (tests/probe_served.rs)"),
    ("tierlab sweep", "Ray tasks from the Python package (python/tests)"),
];

/// Long runs, as written → the short variant run instead: fewer hours, requests, loads or
/// probe requests; the same command, options and outputs otherwise.
const SHORT: [(&str, &str); 32] = [
    // A published workload synthesised at a hundredth of its rate (97,000 requests for
    // Financial*, not 9.7 M: characterising and replaying those is minutes in a debug
    // build), with fewer probe requests per class shape.
    ("tierlab plan --stats hybridstore-t4.3-financial --simulate --html plan.html", "tierlab plan --stats hybridstore-t4.3-financial --simulate --html plan.html --scale 0.01 --probe-requests 200"),
    ("tierlab plan --stats hybridstore-t4.3-financial", "tierlab plan --stats hybridstore-t4.3-financial --scale 0.01 --probe-requests 200"),
    ("tierlab plan --stats hybridstore-t4.3-tpch --json", "tierlab plan --stats hybridstore-t4.3-tpch --json --scale 0.05 --probe-requests 200"),
    ("tierlab plan --trace trace.csv --without iodrive-80gb --price x25m=0.48", "tierlab plan --trace trace.csv --without iodrive-80gb --price x25m=0.48 --max-requests 5000 --probe-requests 200"),
    ("tierlab compare --html report.html", "tierlab compare --html report.html --workload small.toml --batch-requests 200 --run-requests 4000 --ssd-fraction 0.25 --pt 2 --extent-bytes 1048576 --mcml 4"),
    ("tierlab ssd compare-ftl ../shared/traces/blkreplay-linux-mysql.load.gz", "tierlab ssd compare-ftl ../shared/traces/blkreplay-linux-mysql.load.gz --max-requests 1000"),
    ("tierlab ssd compare-ftl ../shared/traces/msn-fs-30s.disksim-ms", "tierlab ssd compare-ftl ../shared/traces/msn-fs-30s.disksim-ms --max-requests 1000"),
    ("tierlab ssd compare-ftl ../shared/traces/tpcc-small.disksim --speed 0.05", "tierlab ssd compare-ftl ../shared/traces/tpcc-small.disksim --speed 0.05 --max-requests 1000"),
    ("tierlab ssd compare-ftl ../shared/traces/umass-websearch-small.disksim --serial", "tierlab ssd compare-ftl ../shared/traces/umass-websearch-small.disksim --serial --max-requests 1000"),
    ("tierlab hdd probe --device maxtor-atlas-10k-v-73gb", "tierlab hdd probe --device maxtor-atlas-10k-v-73gb --tracks 100 --boundary-reads 100"),
    ("tierlab hdd probe --device maxtor-atlas-10k-v-73gb --tracks 4000 --boundary-reads 4000", "tierlab hdd probe --device maxtor-atlas-10k-v-73gb --tracks 100 --boundary-reads 100"),
    ("tierlab hdd track-aligned --device maxtor-atlas-10k-v-73gb --streaming-read-ahead --raid5 5", "tierlab hdd track-aligned --device maxtor-atlas-10k-v-73gb --streaming-read-ahead --raid5 5 --bonnie-mb 40 --diff-mb 16 --streams 10"),
    ("tierlab hdd track-aligned --device maxtor-atlas-10k-v-73gb --streaming-read-ahead --raid5 5 [--seed 1|2|3] [--json]", "tierlab hdd track-aligned --device maxtor-atlas-10k-v-73gb --streaming-read-ahead --raid5 5 --seed 1 --json --bonnie-mb 40 --diff-mb 16 --streams 10"),
    ("tierlab simulate --mode caching --hdd-track-aligned", "tierlab simulate --mode caching --hdd-track-aligned --workload small.toml"),
    ("tierlab array simulate --scheme hibernator+ --iops 14", "tierlab array simulate --scheme hibernator+ --iops 14 --hours 0.2"),
    ("tierlab array compare --loads 7,14,140 --html arrays.html", "tierlab array compare --loads 7 --html arrays.html --hours 0.01 --warmup-s 10"),
    ("tierlab array compare --loads 7,14 --schemes raid5,raid-cr+,hibernator+,raid-drpm+,pdc-ld+", "tierlab array compare --loads 14 --schemes raid5,hibernator+ --hours 0.1"),
    ("tierlab array compare --loads 140,700,1400 --schemes raid5,raid-cr+,hibernator+,raid-drpm+,pdc-ld+ --hours 4", "tierlab array compare --loads 140 --schemes raid5,raid-cr+ --hours 0.01"),
    ("tierlab array compare --loads 700 --r-limits 5,10,20,40,80 --schemes raid-cr+,hibernator+", "tierlab array compare --loads 700 --r-limits 5,80 --schemes raid-cr+,hibernator+ --hours 0.01 --warmup-s 10"),
    ("tierlab array compare --trace ../shared/traces/cloudphysics-io.csv --speeds 0.25,1 --sort", "tierlab array compare --trace ../shared/traces/cloudphysics-io.csv --speeds 0.25,1 --sort --max-requests 1000"),
    ("tierlab array compare --loads 7 --system examples/system-hibernator.toml", "tierlab array compare --loads 7 --system examples/system-hibernator.toml --hours 0.01 --warmup-s 10"),
    ("tierlab replicate run --hours 2", "tierlab replicate run --hours 0.005 --warmup-s 5"),
    ("tierlab replicate run --hours 3", "tierlab replicate run --hours 0.005 --warmup-s 5"),
    ("tierlab replicate sweep --windows 32M,128M,512M --rtos 100,300 --html replication.html", "tierlab replicate sweep --windows 32M --rtos 100,300 --html replication.html --hours 0.005 --warmup-s 5"),
    ("tierlab replicate sweep --hours 3 --html replication.html", "tierlab replicate sweep --hours 0.005 --warmup-s 5 --windows 32M --rtos 100 --html replication.html"),
    ("tierlab replicate log --transactions 100000 -o tpcc.log && tierlab replicate run --log tpcc.log", "tierlab replicate log --transactions 1000 -o tpcc.log && tierlab replicate run --log tpcc.log --warmup-s 0"),
    ("tierlab replicate run --system examples/system-replica.toml", "tierlab replicate run --system examples/system-replica.toml --hours 0.005 --warmup-s 5"),
    ("tierlab replicate run --system examples/system-replica.toml --low-power power-down", "tierlab replicate run --system examples/system-replica.toml --low-power power-down --hours 0.005 --warmup-s 5"),
    ("tierlab replicate run --system examples/system-replica.toml [--low-power power-down]", "tierlab replicate run --system examples/system-replica.toml --low-power power-down --hours 0.005 --warmup-s 5"),
    ("tierlab cache ../shared/traces/cloudphysics-io.csv", "tierlab cache ../shared/traces/cloudphysics-io.csv --max-requests 2000"),
    ("tierlab cache ../shared/traces/cloudphysics-io.csv --html mrc.html", "tierlab cache ../shared/traces/cloudphysics-io.csv --html mrc.html --max-requests 2000"),
    ("tierlab cache trace.csv --sizes 1M,4M,16M,64M -a lru,sieve,s3fifo --html mrc.html", "tierlab cache trace.csv --sizes 1M,4M,16M,64M -a lru,sieve,s3fifo --html mrc.html --max-requests 2000"),
];

/// Placeholder inputs the docs name, and the shared trace each is a copy of (`None`: made
/// here).
const PLACEHOLDERS: [(&str, Option<&str>); 3] = [("trace.csv", Some("traces/cloudphysics-io.csv")), ("ids.bin", None), ("w44.oracleGeneral.bin", None)];

/// The bundled workload cut to 1,000 requests on 4 GiB, for the short variants.
const SMALL_WORKLOAD: &str =
    "tierlab workload show > small.toml.full && sed 's/^requests = .*/requests = 1000/; s/^span_bytes = .*/span_bytes = 4294967296/' small.toml.full > small.toml";

struct DocCommand {
    /// `README.md:41`.
    place: String,
    /// As written (comment removed, continuation lines joined).
    written: String,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..").canonicalize().expect("the repository")
}

/// Every line of every code block of `text` that is a `tierlab` command.
fn commands_in(file: &str, text: &str) -> Vec<DocCommand> {
    let mut out = Vec::new();
    let mut in_block = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            pending = None;
            continue;
        }
        if !in_block {
            continue;
        }
        let (first, joined) = match pending.take() {
            Some((n, s)) => (n, format!("{s} {}", line.trim())),
            None => (i + 1, line.trim().to_string()),
        };
        if let Some(head) = joined.strip_suffix('\\') {
            pending = Some((first, head.trim_end().to_string()));
            continue;
        }
        let cmd = strip_comment(&joined);
        if cmd.starts_with("tierlab ") {
            out.push(DocCommand { place: format!("{file}:{first}"), written: cmd });
        }
    }
    out
}

/// The line without a shell comment (`  # …` outside quotes).
fn strip_comment(line: &str) -> String {
    let mut quoted = false;
    let bytes: Vec<char> = line.chars().collect();
    for (i, c) in bytes.iter().enumerate() {
        match c {
            '"' | '\'' => quoted = !quoted,
            '#' if !quoted && (i == 0 || bytes[i - 1].is_whitespace()) => return bytes[..i].iter().collect::<String>().trim().to_string(),
            _ => {}
        }
    }
    line.trim().to_string()
}

/// `[--flag a|b]` → `--flag a`: optional parts included, the first alternative taken.
fn expand_optional(cmd: &str) -> String {
    let mut out = String::new();
    let mut rest = cmd;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']') else { break };
        out.push_str(&rest[..open]);
        let inner = &rest[open + 1..open + close];
        let words: Vec<String> = inner.split_whitespace().map(|w| w.split('|').next().unwrap_or(w).to_string()).collect();
        out.push_str(&words.join(" "));
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// What to run for `written`, or why not.
fn to_run(written: &str) -> Result<String, &'static str> {
    if let Some((_, why)) = SKIPPED.iter().find(|(prefix, _)| written.starts_with(prefix)) {
        return Err(why);
    }
    Ok(match SHORT.iter().find(|(w, _)| *w == written) {
        Some((_, short)) => short.to_string(),
        None => expand_optional(written),
    })
}

fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs")).expect("docs/").filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "md")).collect();
    docs.sort();
    files.extend(docs);
    files
}

/// A scratch directory `<tmp>/repo` holding links to the repository's files (not its
/// `target`), beside `<tmp>/shared` → `../shared`, with the placeholder inputs.
fn scratch(shared: Option<&Path>) -> PathBuf {
    let root = std::env::temp_dir().join(format!("tierlab-docs-commands-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let work = root.join("repo");
    std::fs::create_dir_all(&work).unwrap();
    for entry in std::fs::read_dir(repo()).unwrap().filter_map(|e| e.ok()) {
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        std::os::unix::fs::symlink(entry.path(), work.join(&name)).unwrap();
    }
    if let Some(shared) = shared {
        std::os::unix::fs::symlink(shared, root.join("shared")).unwrap();
        for (name, source) in PLACEHOLDERS {
            if let Some(source) = source {
                std::os::unix::fs::symlink(shared.join(source), work.join(name)).unwrap();
            }
        }
    }
    // 5,000 ids over 500 objects, little-endian u64 (`--format binary-u64`).
    let ids: Vec<u8> = (0..5000u64).flat_map(|i| ((i * 7919) % 500).to_le_bytes()).collect();
    std::fs::write(work.join("ids.bin"), ids).unwrap();
    // libCacheSim oracleGeneral: u32 time, u64 id, u32 size, i64 next access (-1).
    let mut oracle = Vec::new();
    for i in 0..5000u64 {
        oracle.extend_from_slice(&(i as u32).to_le_bytes());
        oracle.extend_from_slice(&((i * 7919) % 700).to_le_bytes());
        oracle.extend_from_slice(&(4096u32 * (1 + (i % 64) as u32)).to_le_bytes());
        oracle.extend_from_slice(&(-1i64).to_le_bytes());
    }
    std::fs::write(work.join("w44.oracleGeneral.bin"), oracle).unwrap();
    work
}

fn run_in(work: &Path, cmd: &str) -> Result<(), String> {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_tierlab")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(work)
        .env("PATH", path)
        .env("CI", "true")
        // `tierlab plan` measures device bandwidths into a cache: a fresh one per run, so
        // every run measures as a first run does.
        .env("TIERLAB_CACHE_DIR", work.join(".tierlab-cache"))
        .output()
        .map_err(|e| format!("cannot start sh: {e}"))?;
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || err.contains("panicked") {
        return Err(format!("exit {:?}: {}", out.status.code(), err.trim()));
    }
    Ok(())
}

#[test]
fn every_command_of_the_readme_and_docs_runs() {
    let shared = support::cli::shared();
    let mut groups: Vec<Vec<DocCommand>> = Vec::new();
    let mut seen = BTreeSet::new();
    for file in doc_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(repo()).unwrap().display().to_string();
        let cmds = commands_in(&name, &text);
        seen.extend(cmds.iter().map(|c| c.written.clone()));
        groups.push(cmds);
    }
    // The short variants name commands the docs still give.
    for (written, _) in SHORT {
        assert!(seen.contains(written), "SHORT names `{written}`, which no README or docs/ code block gives any more");
    }
    assert!(seen.len() > 60, "the docs' commands were found: {}", seen.len());

    let work = scratch(shared.as_deref());
    run_in(&work, SMALL_WORKLOAD).expect("the small workload");
    let needs_shared = |cmd: &str| cmd.contains("../shared") || PLACEHOLDERS.iter().any(|(name, src)| src.is_some() && cmd.split_whitespace().any(|w| w == *name));
    // Documents in parallel (a document's commands in order: a later one may read what an
    // earlier one wrote), the longest first.
    groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
    let queue = Arc::new(Mutex::new(groups));
    let failures = Arc::new(Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let (queue, failures, work) = (queue.clone(), failures.clone(), work.clone());
            let have_shared = shared.is_some();
            std::thread::spawn(move || loop {
                let Some(group) = queue.lock().unwrap().pop() else { return };
                for c in group {
                    let line = match to_run(&c.written) {
                        Err(why) => format!("skipped  {}: {} ({why})", c.place, c.written),
                        Ok(cmd) if !have_shared && needs_shared(&cmd) => format!("skipped  {}: {} (../shared is absent)", c.place, c.written),
                        Ok(cmd) => {
                            let start = Instant::now();
                            let result = run_in(&work, &cmd);
                            let secs = start.elapsed().as_secs_f64();
                            if let Err(e) = result {
                                failures.lock().unwrap().push(format!("{}: `{cmd}` failed: {e}", c.place));
                            }
                            format!("{secs:6.1} s {}: {cmd}", c.place)
                        }
                    };
                    eprintln!("{line}");
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("a worker");
    }
    let failures = failures.lock().unwrap();
    let _ = std::fs::remove_dir_all(work.parent().unwrap());
    assert!(failures.is_empty(), "{} documented command(s) failed:\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn commands_are_read_from_code_blocks_as_a_shell_would() {
    let md = "text `tierlab nope`\n```sh\ntierlab a --x 1   # comment\ntierlab serve --ssd a \\\n    --hdd b\nls\n```\n";
    let cmds = commands_in("f.md", md);
    let got: Vec<(&str, &str)> = cmds.iter().map(|c| (c.place.as_str(), c.written.as_str())).collect();
    assert_eq!(got, [("f.md:3", "tierlab a --x 1"), ("f.md:4", "tierlab serve --ssd a --hdd b")]);
    assert_eq!(expand_optional("tierlab x [--seed 1|2|3] [--json] y"), "tierlab x --seed 1 --json y");
    assert_eq!(strip_comment("tierlab hdd layout --hdd-variant \"J20 # x\"  # c"), "tierlab hdd layout --hdd-variant \"J20 # x\"");
    assert!(to_run("tierlab ctl stats").is_err());
    assert_eq!(to_run("tierlab system savings [--html fig44.html]").unwrap(), "tierlab system savings --html fig44.html");
}
