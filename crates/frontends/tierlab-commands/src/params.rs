//! A command called by its path and named parameters — a Python call's keywords — turned
//! into the argument list its clap definitions read, so that a call and a command line
//! are parsed, defaulted and checked by the same code.
//!
//! A parameter is named as [`describe`](crate::api::describe) names it (`ssd_fraction` for
//! `--ssd-fraction`, a positional by its name). Its value: `true` for a flag that takes
//! none, `false` or `null` to leave it out, a list for a parameter that takes several
//! values, a number or text as the command line would spell it, and a table (an object)
//! where the command reads a TOML file: the table is written as one, for the call only.

use crate::api::{Failure, FailureKind};
use crate::describe::{CommandSpec, ParamKind};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// A call as a command line: the arguments after the program name, and the directory of
/// the TOML files written for its tables (removed when this is dropped).
pub(crate) struct CallLine {
    pub args: Vec<String>,
    _files: Option<Scratch>,
}

/// A directory removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn usage(message: String) -> Failure {
    Failure { kind: FailureKind::Usage, message, location: None }
}

/// The argument list that calls `spec`'s command with `params`: its path, the named flags,
/// `--json` where the command prints JSON, then the positionals in their order.
pub(crate) fn call_line(spec: &CommandSpec, params: &Map<String, Value>) -> Result<CallLine, Failure> {
    let mut args = spec.path.clone();
    let mut positionals: Vec<(usize, String)> = Vec::new();
    let mut files = None;
    for (name, value) in params {
        let Some((index, p)) = spec.params.iter().enumerate().find(|(_, p)| &p.name == name) else {
            let command = if spec.path.is_empty() { "this call".to_string() } else { format!("`{}`", spec.path.join(" ")) };
            return Err(usage(format!("{command} takes no parameter `{name}`")));
        };
        let values: Vec<&Value> = match value {
            Value::Array(items) if p.multiple => items.iter().collect(),
            Value::Array(_) => return Err(usage(format!("{name}: expected one value, found a list"))),
            v => vec![v],
        };
        for v in values {
            let text = match v {
                Value::Null | Value::Bool(false) => continue,
                Value::Bool(true) if p.kind == ParamKind::Bool => None,
                Value::Bool(true) => Some("true".to_string()),
                Value::Number(n) => Some(n.to_string()),
                Value::String(s) => Some(s.clone()),
                Value::Object(_) => Some(write_table(name, v, &mut files)?),
                Value::Array(_) => return Err(usage(format!("{name}: expected a value, found a list inside a list"))),
            };
            match (&p.flag, text) {
                (Some(flag), None) => args.push(flag.clone()),
                (Some(flag), Some(t)) => args.extend([flag.clone(), t]),
                (None, Some(t)) => positionals.push((index, t)),
                (None, None) => return Err(usage(format!("{name}: expected a value, found true"))),
            }
        }
    }
    if spec.json {
        args.push("--json".into());
    }
    if !positionals.is_empty() {
        // After `--`, a positional that starts with `-` is not taken for a flag.
        positionals.sort_by_key(|(index, _)| *index);
        args.push("--".into());
        args.extend(positionals.into_iter().map(|(_, t)| t));
    }
    Ok(CallLine { args, _files: files })
}

/// Write `table` as the TOML file the parameter `name` names; its path.
fn write_table(name: &str, table: &Value, files: &mut Option<Scratch>) -> Result<String, Failure> {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let toml = crate::api::table_to_toml(table).map_err(|f| usage(format!("{name}: {}", f.message)))?;
    if files.is_none() {
        let dir = std::env::temp_dir().join(format!("tierlab-call-{}-{}", std::process::id(), CALLS.fetch_add(1, Ordering::Relaxed)));
        std::fs::create_dir_all(&dir).map_err(|e| usage(format!("{name}: cannot make a directory for its TOML file {}: {e}", dir.display())))?;
        *files = Some(Scratch(dir));
    }
    let dir = files.as_ref().map(|s| s.0.clone()).unwrap_or_default();
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, toml).map_err(|e| usage(format!("{name}: cannot write {}: {e}", path.display())))?;
    Ok(path.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::describe;

    fn line(path: &[&str], params: serde_json::Value) -> Result<Vec<String>, Failure> {
        let spec = describe(&path.iter().map(|s| s.to_string()).collect::<Vec<_>>()).expect("a command");
        call_line(&spec, params.as_object().expect("an object")).map(|l| l.args)
    }

    #[test]
    fn named_parameters_become_the_flags_the_command_reads() {
        let args = line(&["simulate"], serde_json::json!({"ssd_fraction": 0.25, "wrap": true, "sort": false, "trace": null, "mode": "tiering"})).unwrap();
        assert_eq!(args, ["simulate", "--mode", "tiering", "--ssd-fraction", "0.25", "--wrap", "--json"]);
        let args = line(&["compare"], serde_json::json!({"mode": ["tiering", "caching"]})).unwrap();
        assert_eq!(args, ["compare", "--mode", "tiering", "--mode", "caching", "--json"]);
        let args = line(&["trace", "stats"], serde_json::json!({"format": "msr", "file": "-odd.csv"})).unwrap();
        assert_eq!(args, ["trace", "stats", "--format", "msr", "--json", "--", "-odd.csv"]);
    }

    #[test]
    fn an_unknown_name_or_a_list_for_one_value_is_a_usage_failure() {
        let f = line(&["simulate"], serde_json::json!({"no_such_option": 1})).unwrap_err();
        assert_eq!(f.kind, FailureKind::Usage);
        assert!(f.message.contains("`simulate` takes no parameter `no_such_option`"), "{}", f.message);
        let f = line(&["simulate"], serde_json::json!({"depth": [1, 2]})).unwrap_err();
        assert!(f.message.starts_with("depth:"), "{}", f.message);
    }

    #[test]
    fn a_table_is_a_toml_file_that_lives_as_long_as_the_call() {
        let spec = describe(&["simulate".to_string()]).unwrap();
        let call = call_line(&spec, serde_json::json!({"workload": {"requests": 10}}).as_object().unwrap()).unwrap();
        let path = PathBuf::from(&call.args[2]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "requests = 10\n");
        drop(call);
        assert!(!path.exists());
    }
}
