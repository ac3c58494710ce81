use super::*;

#[test]
fn configurations_round_trip_through_json() {
    let device = HddChoice { variant: Some("J20 TK 7GK".into()), spin_down_s: Some(30.0), ..HddChoice::default() };
    let l = LayoutConfig { device: device.clone(), start: 1000, tracks: 12 };
    assert_eq!(serde_json::from_str::<LayoutConfig>(&serde_json::to_string(&l).unwrap()).unwrap(), l);
    let p = ProbeConfig { target: ProbeTarget::Device { path: "/dev/sdz".into(), sector_bytes: 4096 }, start: 0, tracks: Some(8), boundary_reads: 0, seed: 3 };
    assert_eq!(serde_json::from_str::<ProbeConfig>(&serde_json::to_string(&p).unwrap()).unwrap(), p);
    let p = ProbeConfig { target: ProbeTarget::Model(device.clone()), ..p };
    assert_eq!(serde_json::from_str::<ProbeConfig>(&serde_json::to_string(&p).unwrap()).unwrap(), p);
    let t = TrackAlignedConfig { raid5: Some(5), variants: vec!["base".into(), "J20 TK 7GK".into()], queue: "sptf".into(), ..TrackAlignedConfig::new(device) };
    let text = serde_json::to_string(&t).unwrap();
    assert_eq!(serde_json::from_str::<TrackAlignedConfig>(&text).unwrap(), t, "{text}");
    // A drive given by its id alone takes every other choice's default.
    let l: LayoutConfig = serde_json::from_str(r#"{"device": {"device": "seagate-cheetah-15k5"}, "tracks": 4}"#).unwrap();
    assert_eq!((l.device.device.as_str(), l.device.variant.as_deref(), l.start), ("seagate-cheetah-15k5", None, 0));
    assert!(serde_json::from_str::<LayoutConfig>(r#"{"tracks": 4, "first": 2}"#).unwrap_err().to_string().contains("first"));
}

#[test]
fn errors_name_the_field_at_fault() {
    let e = layout(&LayoutConfig { start: u64::MAX, tracks: 1, ..LayoutConfig::default() }).unwrap_err();
    assert!(matches!(e, HddStudyError::StartBeyond { start: u64::MAX, .. }), "{e}");
    assert!(e.to_string().starts_with("`start`"), "{e}");
    let cfg = TrackAlignedConfig::new(HddChoice::default());
    let e = track_aligned(&TrackAlignedConfig { queue: "elevator".into(), ..cfg.clone() }, &mut |_, _| {}).unwrap_err();
    assert!(e.to_string().starts_with("`queue`"), "{e}");
    let e = track_aligned(&TrackAlignedConfig { raid5: Some(3), variants: vec!["base".into()], ..cfg.clone() }, &mut |_, _| {}).unwrap_err();
    assert!(matches!(e, HddStudyError::VariantCount { given: 1, disks: 3 }), "{e}");
    let e = track_aligned(&TrackAlignedConfig { raid5: Some(3), device: HddChoice { device: "maxtor-atlas-10k-v-73gb".into(), variant: Some("J20 TK 7GK".into()), ..HddChoice::default() }, ..cfg }, &mut |_, _| {}).unwrap_err();
    assert!(e.to_string().starts_with("`device.variant`"), "{e}");
    let e = track_boundaries_file(Path::new("/nonexistent/tracks.json")).unwrap_err();
    assert!(e.to_string().starts_with("/nonexistent/tracks.json: "), "{e}");
}

#[test]
fn a_layout_lists_contiguous_tracks_that_read_back_as_boundaries() {
    let report = layout(&LayoutConfig { tracks: 40, ..LayoutConfig::default() }).unwrap();
    assert_eq!(report.tracks.len(), 40);
    assert_eq!(report.tracks[0].first_lbn, 0);
    for w in report.tracks.windows(2) {
        assert_eq!(w[0].first_lbn + w[0].sectors, w[1].first_lbn);
        assert!(w[0].sectors > 0);
    }
    // The JSON is the list of tracks alone, which the boundary reader takes.
    let json = serde_json::to_string(&report).unwrap();
    assert!(json.starts_with('['), "{json}");
    let dir = std::env::temp_dir().join(format!("tierlab-hdd-study-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("layout.json");
    std::fs::write(&path, &json).unwrap();
    let bounds = track_boundaries_file(&path).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(bounds.len(), 41);
    assert_eq!(bounds[1], report.tracks[1].first_lbn * 512);
}

#[test]
fn a_short_track_aligned_run_reports_every_scheme() {
    let cfg = TrackAlignedConfig { bonnie_mb: 4, diff_mb: 2, streams: Some(4), ..TrackAlignedConfig::new(HddChoice::default()) };
    let mut heard = Vec::new();
    let r = track_aligned(&cfg, &mut |s, n| heard.push((s.to_string(), n))).unwrap();
    assert_eq!(heard.last(), Some(&("track-aligned".to_string(), 9)));
    assert!(r.tracks > 0 && r.raid5.is_none());
    let schemes: Vec<Scheme> = r.bonnie.iter().map(|b| b.scheme).collect();
    assert_eq!(schemes, Scheme::ALL);
    for b in &r.bonnie {
        assert!(b.write_mb_s > 0.0 && b.read_mb_s > 0.0, "{b:?}");
    }
    assert!(r.diff.iter().all(|d| d.seconds > 0.0));
    assert_eq!(r.streams.len(), 3);
}
