//! Each shape of bad input must name the file, the line and the full key path.

use super::*;
use serde::Deserialize;

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Level {
    name: String,
    power_w: f64,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Power {
    idle_w: f64,
    standby: Vec<Level>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct Top {
    id: String,
    power: Power,
}

impl Validate for Top {
    fn validate(&self) -> Result<(), FieldError> {
        for (i, l) in self.power.standby.iter().enumerate() {
            if l.power_w < 0.0 {
                return Err(FieldError::new("power_w", "expected a power >= 0 W")
                    .within(&format!("standby[{i}]"))
                    .within("power"));
            }
        }
        Ok(())
    }
}

const GOOD: &str = "id = 'd'\n[power]\nidle_w = 1.5\n[[power.standby]]\nname = 'a'\npower_w = 1.0\n[[power.standby]]\nname = 'b'\npower_w = 0.5\n";

fn err(text: &str) -> ConfigError {
    match parse_toml_validated::<Top>(text, "drive.toml") {
        Ok(v) => panic!("expected an error, parsed {v:?}"),
        Err(e) => e,
    }
}

#[test]
fn good_file_parses() {
    let top: Top = parse_toml_validated(GOOD, "drive.toml").expect("valid");
    assert_eq!(
        top.power.standby[1],
        Level {
            name: "b".into(),
            power_w: 0.5
        }
    );
}

#[test]
fn wrong_type_names_file_line_key_and_expectation() {
    let e = err(&GOOD.replace("power_w = 0.5", "power_w = 'half'"));
    assert_eq!(e.location.file, "drive.toml");
    assert_eq!(e.location.line, 9);
    assert_eq!(e.location.field, "power.standby[1].power_w");
    assert!(e.message.contains("expected f64"), "{e}");
    let shown = e.to_string();
    assert!(
        shown.starts_with("drive.toml:9: field `power.standby[1].power_w`"),
        "{shown}"
    );
}

#[test]
fn unknown_key_is_an_error_listing_the_known_keys() {
    let e = err(&GOOD.replace("name = 'b'", "name = 'b'\npower_mw = 3"));
    assert_eq!(e.location.line, 9);
    assert_eq!(e.location.field, "power.standby[1].power_mw");
    assert!(e.message.contains("unknown field `power_mw`"), "{e}");
    assert!(e.message.contains("`power_w`"), "{e}");
}

#[test]
fn missing_field_names_the_field_itself() {
    let e = err(&GOOD.replace("power_w = 0.5\n", ""));
    assert_eq!(e.location.field, "power.standby[1].power_w");
    assert_eq!(e.location.line, 7, "{e}");
    assert!(e.message.contains("missing field `power_w`"), "{e}");

    let e = err("id = 'd'\n");
    assert_eq!(e.location.field, "power");
    assert_eq!(e.location.line, 1);
}

#[test]
fn inline_tables_are_located_too() {
    let e = err("id = 'd'\n[power]\nidle_w = 1.0\nstandby = [\n  { name = 'a', power_w = 1.0 },\n  { name = 'b', power_w = true },\n]\n");
    assert_eq!(e.location.field, "power.standby[1].power_w");
    assert_eq!(e.location.line, 6);
}

#[test]
fn syntax_error_names_the_line() {
    let e = err("id = 'd'\n[power]\nidle_w = = 1.0\n");
    assert_eq!(e.location.line, 3);
    assert_eq!(e.location.field, "");
}

#[test]
fn validation_error_is_located_at_the_offending_key() {
    let e = err(&GOOD.replace("power_w = 0.5", "power_w = -0.5"));
    assert_eq!(e.location.field, "power.standby[1].power_w");
    assert_eq!(e.location.line, 9);
    assert!(e.message.contains("expected a power >= 0 W"));
}

#[test]
fn unreadable_file_names_the_path() {
    let missing = std::path::Path::new("/nonexistent/tierlab/drive.toml");
    let e = load_toml::<Top>(missing).expect_err("no such file");
    assert_eq!(e.location.file, "/nonexistent/tierlab/drive.toml");
    assert!(e.message.contains("cannot read"));
}

#[test]
fn load_toml_reads_a_file() {
    let dir = std::env::temp_dir().join(format!("tierlab-config-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("good.toml");
    std::fs::write(&path, GOOD).expect("write");
    let top: Top = load_toml_validated(&path).expect("valid file");
    assert_eq!(top.id, "d");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn within_joins_key_paths() {
    assert_eq!(
        FieldError::new("power_w", "x")
            .within("standby[2]")
            .within("power")
            .key,
        "power.standby[2].power_w"
    );
    assert_eq!(FieldError::new("[3]", "x").within("rpms").key, "rpms[3]");
    assert_eq!(FieldError::new("", "x").within("rpms").key, "rpms");
}

#[test]
fn line_of_offset_counts_newlines() {
    assert_eq!(line_of_offset("a\nb\nc", 0), 1);
    assert_eq!(line_of_offset("a\nb\nc", 2), 2);
    assert_eq!(line_of_offset("a\nb\nc", 999), 3);
}
