//! The secondary site inside a described system: its whole power beside its disks', and
//! a data volume that sleeps with its slots powered down.

use tierlab_replication_sim::*;
use tierlab_system_power::{EnclosureGroup, LowPower, SystemSpec, POWERED_DOWN};
use tierlab_types::MIB;
use tierlab_update_stream::TpccConfig;

fn cfg(low_power: LowPower) -> ReplicationConfig {
    ReplicationConfig {
        source: SourceSpec::Tpcc(TpccConfig {
            warehouses: 2,
            buffer_pool_bytes: 16 * MIB,
            ..TpccConfig::default()
        }),
        data_disks: 4,
        log_disks: 1,
        primary_depth: 32,
        duration_s: 1000.0,
        warmup_s: 60.0,
        rto_s: 50.0,
        window_bytes: 8 * MIB,
        apply_cache_bytes: 16 * MIB,
        system: Some(SystemSpec {
            controller: "emc-dd860".into(),
            controller_workload: None,
            controller_rated_mb_s: None,
            low_power,
            catalog: None,
            enclosures: vec![EnclosureGroup {
                model: "emc-es30".into(),
                count: 1,
                disks: None,
            }],
        }),
        ..ReplicationConfig::default()
    }
}

#[test]
fn the_sites_saving_is_stated_for_disks_and_system() {
    for low_power in [LowPower::SpinDown, LowPower::PowerDown] {
        let c = cfg(low_power);
        let standby = data_standby(&c).unwrap();
        let down = low_power == LowPower::PowerDown;
        assert_eq!(
            standby.level == POWERED_DOWN,
            down,
            "{low_power:?}: {}",
            standby.level
        );
        let cmp = compare(&c, &[Scheme::Proposed], &mut |_, _| {}).unwrap();
        let (base, proposed) = (&cmp.rows[0], &cmp.rows[1]);
        assert_eq!(base.saving_system, Some(0.0));
        let sys = proposed.saving_system.unwrap();
        assert!(
            proposed.saving_total > 0.0,
            "{low_power:?}: the proposed scheme saves on the disks"
        );
        assert!(
            sys > 0.0 && sys < proposed.saving_total,
            "{low_power:?}: system {sys} vs disks {}",
            proposed.saving_total
        );
        let e = proposed.run.system.as_ref().unwrap();
        assert_eq!(e.powered_down_disk_s > 0.0, down, "{low_power:?}");
        // The log disk never sleeps.
        let log = proposed.run.disks.iter().find(|d| d.role == "log").unwrap();
        assert_eq!(log.start_stop_cycles, 0.0);
    }
}
