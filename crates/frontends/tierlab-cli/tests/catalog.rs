//! `tierlab catalog list` and `show`: every kind of entry, its figures and its sources.

mod support;

use support::cli::{fails, json, ok};

/// One entry of each kind, with a figure `show` must print and a word of a citation.
const ONE_OF_EACH: [(&str, &str, &str, &str); 5] = [
    ("hdd", "ibm-ultrastar-36z15", "rpm", "Hibernator: Helping Disk Arrays Sleep"),
    ("ssd", "intel-320-300gb", "ssd.geometry.channels", "Intel SSD 320 product specification"),
    ("controller", "emc-dd860", "idle_w", "GreenDM"),
    ("enclosure", "emc-es30", "spun_down_w", "GreenDM"),
    ("plan", "hybridstore-2009/x25m", "price_usd_per_gb", "Table 4.4"),
];

#[test]
fn list_names_every_kind_with_figures_and_sources() {
    let text = ok(&["catalog", "list"]);
    for heading in ["HDDs", "SSDs", "storage controllers", "disk enclosures", "planning device types"] {
        assert!(text.contains(heading), "no {heading} in:\n{text}");
    }
    for (_, id, _, _) in ONE_OF_EACH {
        assert!(text.contains(id), "no {id} in:\n{text}");
    }
    // Every built-in SSD, controller and enclosure, not only the HDDs.
    for id in ["study-slc", "samsung-990pro-1tb", "emc-dd990", "emc-es20", "recent/nearline-16tb"] {
        assert!(text.contains(id), "no {id} in:\n{text}");
    }

    let v = json(&ok(&["catalog", "list", "--json"]));
    let all = v.as_array().expect("an array");
    for (kind, id, _, _) in ONE_OF_EACH {
        let e = all.iter().find(|e| e["id"] == id).unwrap_or_else(|| panic!("no {id} in --json"));
        assert_eq!(e["kind"], kind, "{e}");
        assert!(e["figures"].as_object().is_some_and(|f| !f.is_empty()), "{id}: figures as an object: {e}");
        assert!(e["sources"].as_object().is_some_and(|s| !s.is_empty()), "{id}: no sources: {e}");
        assert!(e["file"].as_str().is_some_and(|f| f.starts_with("catalog/")), "{e}");
    }

    let ssds = json(&ok(&["catalog", "list", "--kind", "ssd", "--json"]));
    assert!(ssds.as_array().unwrap().iter().all(|e| e["kind"] == "ssd"), "{ssds}");
    assert_eq!(ssds.as_array().unwrap().len(), 5);
}

#[test]
fn show_prints_any_entry_with_its_figures_and_citations() {
    for (kind, id, figure, citation) in ONE_OF_EACH {
        let text = ok(&["catalog", "show", id]);
        assert!(text.contains(figure), "{id}: no {figure} in:\n{text}");
        assert!(text.to_lowercase().contains(&citation.to_lowercase()), "{id}: no citation {citation:?} in:\n{text}");
        assert!(text.contains("file: catalog/"), "{id}:\n{text}");
        let v = json(&ok(&["catalog", "show", id, "--json"]));
        assert_eq!((v["kind"].as_str(), v["id"].as_str()), (Some(kind), Some(id)), "{v}");
        assert!(v["entry"].is_object(), "{v}");
    }
    // A planning device by its own id when one catalog has it.
    let v = json(&ok(&["catalog", "show", "x25m", "--json"]));
    assert_eq!(v["id"], "hybridstore-2009/x25m");
    let shown = ok(&["catalog", "show", "intel-320-300gb"]);
    assert!(shown.contains("36500000000000"), "the rated endurance:\n{shown}");

    let err = fails(&["catalog", "show", "no-such-thing"]);
    assert!(err.contains("no-such-thing") && err.contains("intel-320-300gb") && err.contains("emc-es20"), "{err}");
    let err = fails(&["catalog", "show", "intel-320-300gb", "--kind", "hdd"]);
    assert!(err.contains("no catalog entry"), "{err}");
}

#[test]
fn a_catalog_directory_replaces_the_kinds_it_has() {
    let dir = std::env::temp_dir().join(format!("tierlab-catalog-test-{}", std::process::id()));
    let hdd = dir.join("hdd");
    std::fs::create_dir_all(&hdd).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../catalog/hdd/ibm-ultrastar-36z15.toml");
    std::fs::copy(&root, hdd.join("ibm-ultrastar-36z15.toml")).unwrap();
    let v = json(&ok(&["catalog", "list", "--catalog", dir.to_str().unwrap(), "--json"]));
    let ids: Vec<&str> = v.as_array().unwrap().iter().filter_map(|e| e["id"].as_str()).collect();
    assert_eq!(ids, ["ibm-ultrastar-36z15"]);
    std::fs::write(hdd.join("broken.toml"), "id = 'broken'\nrpm = 'fast'\n").unwrap();
    let err = fails(&["catalog", "list", "--catalog", dir.to_str().unwrap()]);
    assert!(err.contains("broken.toml"), "names the file: {err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
