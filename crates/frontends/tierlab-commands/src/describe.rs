//! A command's parameters as its `--help` defines them, for front ends that present a
//! command as a function: the Python package builds each function's signature, type
//! hints, defaults and docstring from this, so the function and `tierlab COMMAND --help`
//! come from one source and cannot drift apart.

use clap::{ArgAction, CommandFactory};
use serde::Serialize;
use std::any::TypeId;
use std::path::PathBuf;

/// One command: its place in the command tree, what it does, what it takes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommandSpec {
    /// `["array", "simulate"]`.
    pub path: Vec<String>,
    /// The command's help, as `--help` prints it above the options.
    pub about: String,
    /// Its parameters in `--help`'s order: positionals first, then options. `--json`,
    /// `--help` and `--version` are left out (a front end asks for JSON itself).
    pub params: Vec<ParamSpec>,
    /// Whether it prints its report as JSON when asked (`--json`).
    pub json: bool,
}

/// The kind of value a parameter takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    /// A flag: present or not.
    Bool,
    Int,
    Float,
    /// A file or directory.
    Path,
    /// Text: a name, a list of names, a duration with its unit…
    Str,
}

/// One parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParamSpec {
    /// The name a function takes it by: the long flag with `_` for `-` (`ssd_fraction`
    /// for `--ssd-fraction`), or a positional's name in lower case.
    pub name: String,
    /// The flag (`--ssd-fraction`); `None` for a positional.
    pub flag: Option<String>,
    /// The flag's help text (its long form where it has one).
    pub help: String,
    pub kind: ParamKind,
    /// The values it accepts, where they are a fixed set.
    pub choices: Vec<String>,
    /// Given more than once (or as a comma-separated list) it takes several values.
    pub multiple: bool,
    pub required: bool,
    /// Its default as `--help` shows it (text); empty when it has none.
    pub default: Vec<String>,
    /// The placeholder `--help` shows for its value (`FILE`, `F`…).
    pub value_name: Option<String>,
}

/// The command at `path` (`["simulate"]`, `["array", "compare"]`); `None` if there is
/// no such command.
pub fn describe(path: &[String]) -> Option<CommandSpec> {
    let root = crate::Commands::command();
    let mut cmd = &root;
    for name in path {
        cmd = cmd.find_subcommand(name)?;
    }
    Some(spec_of(cmd, path))
}

/// The spec of the command `cmd`, found at `path`.
pub(crate) fn spec_of(cmd: &clap::Command, path: &[String]) -> CommandSpec {
    let about = cmd.get_long_about().or(cmd.get_about()).map(|s| s.to_string()).unwrap_or_default();
    let mut params: Vec<ParamSpec> = cmd.get_arguments().filter(|a| shown(a)).map(param).collect();
    // Positionals first, in their index order, as a function takes them.
    params.sort_by_key(|p| p.flag.is_some());
    let json = cmd.get_arguments().any(|a| a.get_long() == Some("json"));
    CommandSpec { path: path.to_vec(), about, params, json }
}

fn shown(a: &clap::Arg) -> bool {
    !a.is_hide_set() && !matches!(a.get_long(), Some("json" | "help" | "version")) && !matches!(a.get_action(), ArgAction::Help | ArgAction::HelpLong | ArgAction::HelpShort | ArgAction::Version)
}

fn param(a: &clap::Arg) -> ParamSpec {
    let takes_value = a.get_action().takes_values();
    let kind = if !takes_value {
        if matches!(a.get_action(), ArgAction::Count) {
            ParamKind::Int
        } else {
            ParamKind::Bool
        }
    } else {
        kind_of(a.get_value_parser().type_id())
    };
    let name = match a.get_long() {
        Some(long) => long.replace('-', "_"),
        None => a.get_id().as_str().to_lowercase(),
    };
    let many_values = a.get_num_args().is_some_and(|n| n.max_values() > 1);
    ParamSpec {
        name,
        flag: a.get_long().map(|l| format!("--{l}")),
        help: a.get_long_help().or(a.get_help()).map(|s| s.to_string()).unwrap_or_default(),
        kind,
        choices: if takes_value { a.get_possible_values().iter().filter(|v| !v.is_hide_set()).map(|v| v.get_name().to_string()).collect() } else { Vec::new() },
        multiple: matches!(a.get_action(), ArgAction::Append) || a.get_value_delimiter().is_some() || many_values,
        required: a.is_required_set(),
        default: a.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect(),
        value_name: a.get_value_names().and_then(|v| v.first()).map(|s| s.to_string()),
    }
}

/// The kind of a parser's value type (`clap`'s type id compares with `TypeId`).
fn kind_of(t: impl PartialEq<TypeId>) -> ParamKind {
    let is = |id: TypeId| t == id;
    if [TypeId::of::<f64>(), TypeId::of::<f32>()].into_iter().any(is) {
        ParamKind::Float
    } else if [TypeId::of::<u8>(), TypeId::of::<u16>(), TypeId::of::<u32>(), TypeId::of::<u64>(), TypeId::of::<usize>(), TypeId::of::<i32>(), TypeId::of::<i64>()].into_iter().any(is) {
        ParamKind::Int
    } else if is(TypeId::of::<PathBuf>()) {
        ParamKind::Path
    } else if is(TypeId::of::<bool>()) {
        ParamKind::Bool
    } else {
        ParamKind::Str
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(path: &[&str]) -> CommandSpec {
        describe(&path.iter().map(|s| s.to_string()).collect::<Vec<_>>()).expect("a command")
    }

    fn param<'a>(s: &'a CommandSpec, name: &str) -> &'a ParamSpec {
        s.params.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("{name} in {:?}", s.params.iter().map(|p| &p.name).collect::<Vec<_>>()))
    }

    /// Every command that takes `--json`, by path: the commands a front end can call.
    fn json_commands() -> Vec<Vec<String>> {
        fn walk(cmd: &clap::Command, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
            if cmd.get_arguments().any(|a| a.get_long() == Some("json")) {
                out.push(path.clone());
            }
            for sub in cmd.get_subcommands() {
                path.push(sub.get_name().to_string());
                walk(sub, path, out);
                path.pop();
            }
        }
        let mut out = Vec::new();
        walk(&crate::Commands::command(), &mut Vec::new(), &mut out);
        out
    }

    #[test]
    fn simulate_is_described_with_kinds_defaults_and_choices() {
        let s = spec(&["simulate"]);
        assert!(s.about.contains("Replay a trace"), "{}", s.about);
        assert_eq!(param(&s, "trace").kind, ParamKind::Path);
        let depth = param(&s, "depth");
        assert_eq!((depth.kind, depth.default.as_slice()), (ParamKind::Int, &["1".to_string()][..]));
        assert_eq!(param(&s, "wrap").kind, ParamKind::Bool);
        assert_eq!(param(&s, "replay").choices, ["open", "closed"]);
        assert_eq!(param(&s, "ssd_fraction").kind, ParamKind::Float);
        assert!(!s.params.iter().any(|p| p.name == "json" || p.name == "help"));
        assert!(s.params.len() >= 10, "{}", s.params.len());
    }

    #[test]
    fn positionals_come_first_and_lists_are_multiple() {
        let s = spec(&["trace", "stats"]);
        assert_eq!(s.params[0].flag, None, "{:?}", s.params[0]);
        assert!(s.params[0].required);
        let c = spec(&["compare"]);
        assert!(param(&c, "mode").multiple);
        assert!(!param(&c, "mode").choices.is_empty());
    }

    #[test]
    fn a_design_is_spelled_alike_in_simulate_and_compare() {
        let (s, c) = (spec(&["simulate"]), spec(&["compare"]));
        for name in ["mode", "ssd_fraction", "extent_bytes", "pt", "mcml"] {
            let (one, many) = (param(&s, name), param(&c, name));
            assert_eq!((one.kind, &one.choices, one.multiple), (many.kind, &many.choices, false), "{name}");
            assert!(many.multiple, "{name}");
        }
    }

    #[test]
    fn no_command_no_spec_and_every_json_command_is_described() {
        assert_eq!(describe(&["no-such".to_string()]), None);
        let all = json_commands();
        assert!(all.contains(&vec!["array".to_string(), "compare".to_string()]), "{all:?}");
        assert!(all.iter().all(|p| describe(p).is_some()));
    }
}
