//! The example configuration in `examples/replicate.toml` says its values are the
//! defaults: it must parse, and be exactly `ReplicationConfig::default()`.

use tierlab_replication_sim::ReplicationConfig;

#[test]
fn the_example_configuration_is_the_default() {
    let text = std::fs::read_to_string("../../../examples/replicate.toml").unwrap();
    let cfg: ReplicationConfig = toml::from_str(&text).unwrap();
    assert_eq!(cfg, ReplicationConfig::default());
    cfg.check().unwrap();
}
