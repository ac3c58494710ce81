//! The workspace's layering: every crate sits in a layer folder under `crates/`, and no
//! crate depends on a crate of a higher layer (docs/architecture.md), so that a workload,
//! device, policy or executor never reaches up into a study or a front end. Read from the
//! `Cargo.toml` of every crate (normal, dev and build dependencies alike).

use std::collections::BTreeMap;
use std::path::Path;

/// The layer folders under `crates/`, lowest first. A crate may depend on crates of its
/// own layer and of the layers before it.
const LAYERS: [&str; 8] = ["core", "workload", "devices", "accounting", "policies", "executors", "studies", "frontends"];

/// Crates that lower layers may use although they sit higher: (crate, the layers that may
/// use it, why).
const SHARED_UPWARD: [(&str, &[&str], &str); 3] = [
    ("tierlab-engine", &["devices", "accounting"], "the Device trait every device model implements and the run the measurement layer watches"),
    ("tierlab-report", &["devices"], "the latency summaries a device model reports"),
    ("tierlab-update-log", &["workload"], "the update records a replication stream ships"),
];

/// One crate: its name, its layer folder and the workspace crates it depends on.
struct Krate {
    name: String,
    layer: String,
    deps: Vec<String>,
}

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == layer)
}

/// Every dependency that breaks the layering, as a sentence naming both crates.
fn violations(crates: &[Krate]) -> Vec<String> {
    let layer_of: BTreeMap<&str, &str> = crates.iter().map(|k| (k.name.as_str(), k.layer.as_str())).collect();
    let mut out = Vec::new();
    for k in crates {
        let Some(from) = rank(&k.layer) else {
            out.push(format!("{} is in crates/{}/, which is not a layer ({})", k.name, k.layer, LAYERS.join(", ")));
            continue;
        };
        for d in &k.deps {
            let Some(to_layer) = layer_of.get(d.as_str()) else { continue };
            let Some(to) = rank(to_layer) else { continue };
            let shared = SHARED_UPWARD.iter().any(|(name, users, _)| name == d && users.contains(&k.layer.as_str()));
            if to > from && !shared {
                out.push(format!("{} ({}) depends on {} ({}), a higher layer", k.name, k.layer, d, to_layer));
            }
        }
    }
    out
}

/// The workspace crates `manifest` depends on, under any kind of dependency (a renamed
/// dependency by its package name).
fn tierlab_deps(manifest: &toml::Table) -> Vec<String> {
    let targets = manifest.get("target").and_then(|v| v.as_table()).into_iter().flat_map(|t| t.values().filter_map(|v| v.as_table()));
    let tables: Vec<&toml::Table> = std::iter::once(manifest)
        .chain(targets)
        .flat_map(|t| ["dependencies", "dev-dependencies", "build-dependencies"].into_iter().filter_map(|kind| t.get(kind).and_then(|v| v.as_table())))
        .collect();
    let mut deps: Vec<String> = tables
        .iter()
        .flat_map(|t| t.iter())
        .map(|(key, v)| v.get("package").and_then(|p| p.as_str()).unwrap_or(key).to_string())
        .filter(|n| n.starts_with("tierlab-"))
        .collect();
    deps.sort();
    deps.dedup();
    deps
}

/// Every crate under `root/crates/<layer>/<crate>/Cargo.toml`.
fn workspace_crates(root: &Path) -> Vec<Krate> {
    let mut crates = Vec::new();
    let layers = std::fs::read_dir(root.join("crates")).unwrap_or_else(|e| panic!("{}: {e}", root.join("crates").display()));
    for layer in layers.map(|e| e.unwrap().path()).filter(|p| p.is_dir()) {
        for dir in std::fs::read_dir(&layer).unwrap().map(|e| e.unwrap().path()) {
            let path = dir.join("Cargo.toml");
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let manifest: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = manifest["package"]["name"].as_str().unwrap_or_else(|| panic!("{}: no package.name", path.display())).to_string();
            let layer = layer.file_name().unwrap().to_string_lossy().into_owned();
            crates.push(Krate { name, layer, deps: tierlab_deps(&manifest) });
        }
    }
    crates
}

#[test]
fn no_crate_depends_on_a_higher_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let crates = workspace_crates(&root);
    assert!(crates.len() > 40, "found only {} crates under {}", crates.len(), root.display());
    assert!(crates.iter().any(|k| k.name == "tierlab-hybrid-study" && k.layer == "studies"));
    let bad = violations(&crates);
    assert!(bad.is_empty(), "the layering is broken:\n{}", bad.join("\n"));
}

#[test]
fn an_executor_using_a_study_or_a_crate_outside_the_layers_is_reported() {
    let k = |name: &str, layer: &str, deps: &[&str]| Krate { name: name.into(), layer: layer.into(), deps: deps.iter().map(|d| d.to_string()).collect() };
    let crates = [
        k("tierlab-hybrid-study", "studies", &["tierlab-engine"]),
        k("tierlab-engine", "executors", &[]),
        k("tierlab-array-sim", "executors", &["tierlab-hybrid-study", "tierlab-engine"]),
        k("tierlab-hdd", "devices", &["tierlab-engine"]),
        k("tierlab-odd", "misc", &[]),
    ];
    assert_eq!(
        violations(&crates),
        [
            "tierlab-array-sim (executors) depends on tierlab-hybrid-study (studies), a higher layer",
            "tierlab-odd is in crates/misc/, which is not a layer (core, workload, devices, accounting, policies, executors, studies, frontends)",
        ]
    );
}

/// The command line (`tierlab-cli`) is a front end of its own: the Python bindings reach
/// the studies through the study commands (`tierlab-commands`), not through it; only the
/// wheel, which ships both side by side, links it.
#[test]
fn only_the_wheel_depends_on_the_command_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let crates = workspace_crates(&root);
    let users: Vec<&str> = crates.iter().filter(|k| k.deps.iter().any(|d| d == "tierlab-cli")).map(|k| k.name.as_str()).collect();
    assert_eq!(users, ["tierlab-wheel"]);
    let py = crates.iter().find(|k| k.name == "tierlab-py").expect("tierlab-py");
    assert!(py.deps.iter().any(|d| d == "tierlab-commands"), "{:?}", py.deps);
}
