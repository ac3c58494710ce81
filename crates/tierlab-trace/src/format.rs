//! The trace formats this crate reads, by name.

use std::fmt;
use std::str::FromStr;

/// A trace format. Names (for `--format` and [`FromStr`]) are kebab-case, as listed in
/// [`Format::ALL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// DiskSim/MQSim ASCII: `arrival_ns devno lba_sectors size_sectors op`, op 1 = read,
    /// 0 = write; arrival a whole number of nanoseconds.
    Disksim,
    /// The same five fields with the arrival in (possibly fractional) milliseconds.
    DisksimMs,
    /// CloudPhysics CSV (`version,time,op,size,lbn`): time in seconds, op a SCSI opcode in
    /// hex, size in bytes, lbn in sectors.
    Cloudphysics,
    /// blkreplay `.load`: a preamble, a header, then
    /// `start_s ; sector ; length_sectors ; R|W ; replay_delay ; replay_duration`.
    Blkreplay,
    /// FIU: `ts_ns pid process lba_sectors size_sectors R|W major minor md5`.
    Fiu,
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`,
    /// FILETIME ticks and bytes.
    Msr,
    /// Tencent CBS CSV: `timestamp_s,offset_sectors,size_sectors,io_type,volume_id`.
    TencentCbs,
    /// UMass SPC CSV: `asu,lba_sectors,size_bytes,r|w,timestamp_s[,...]`.
    UmassSpc,
    /// `blkparse` default text output.
    Blkparse,
    /// fio iolog, version 2 (no times) or 3 (times in ms).
    FioIolog,
    /// DiskSim's validation trace: `R|W tag lbn_sectors size_sectors service_us gap_us`.
    DisksimValidate,
}

impl Format {
    /// Every format, in the order content detection tries them.
    pub const ALL: [Format; 11] = [
        Format::FioIolog,
        Format::Blkparse,
        Format::Blkreplay,
        Format::DisksimValidate,
        Format::Fiu,
        Format::Disksim,
        Format::DisksimMs,
        Format::Msr,
        Format::Cloudphysics,
        Format::TencentCbs,
        Format::UmassSpc,
    ];

    /// The kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Disksim => "disksim",
            Format::DisksimMs => "disksim-ms",
            Format::Cloudphysics => "cloudphysics",
            Format::Blkreplay => "blkreplay",
            Format::Fiu => "fiu",
            Format::Msr => "msr",
            Format::TencentCbs => "tencent-cbs",
            Format::UmassSpc => "umass-spc",
            Format::Blkparse => "blkparse",
            Format::FioIolog => "fio-iolog",
            Format::DisksimValidate => "disksim-validate",
        }
    }

    /// One line saying what the format is, for listings.
    pub fn description(self) -> &'static str {
        match self {
            Format::Disksim => {
                "DiskSim/MQSim ASCII: arrival_ns devno lba_sectors size_sectors op(1=read)"
            }
            Format::DisksimMs => "DiskSim ASCII with arrival in (fractional) milliseconds",
            Format::Cloudphysics => {
                "CloudPhysics CSV: version,time_s,scsi_op_hex,size_bytes,lbn_sectors"
            }
            Format::Blkreplay => {
                "blkreplay .load: start_s ; sector ; length_sectors ; R|W ; delay ; duration"
            }
            Format::Fiu => "FIU: ts_ns pid process lba_sectors size_sectors R|W major minor md5",
            Format::Msr => {
                "MSR Cambridge CSV: FILETIME,host,disk,Read|Write,offset_bytes,size_bytes,response"
            }
            Format::TencentCbs => {
                "Tencent CBS CSV: timestamp_s,offset_sectors,size_sectors,io_type(0=read),volume"
            }
            Format::UmassSpc => "UMass SPC CSV: asu,lba_sectors,size_bytes,r|w,timestamp_s[,...]",
            Format::Blkparse => {
                "blkparse text: maj,min cpu seq time_s pid action rwbs sector + nsectors"
            }
            Format::FioIolog => {
                "fio iolog v2 (file action offset length) or v3 (timestamp_us first)"
            }
            Format::DisksimValidate => {
                "DiskSim validate: R|W tag lbn_sectors size_sectors service_us gap_us"
            }
        }
    }

    /// File-name endings (before any compression suffix) that suggest this format. A
    /// matching ending makes detection try this format first; the content must still
    /// parse.
    pub(crate) fn extensions(self) -> &'static [&'static str] {
        match self {
            Format::Disksim => &[".disksim"],
            Format::DisksimMs => &[".disksim-ms"],
            Format::Blkreplay => &[".load"],
            Format::Fiu => &[".fiu", ".blkparse"],
            Format::UmassSpc => &[".spc"],
            Format::Blkparse => &[".blktrace.txt"],
            Format::FioIolog => &[".iolog"],
            Format::DisksimValidate => &[".trace"],
            Format::Cloudphysics | Format::Msr | Format::TencentCbs => &[],
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The names of all formats, comma separated, for messages.
pub(crate) fn all_names() -> String {
    Format::ALL
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown trace format {s:?}; known formats: {}", all_names()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for f in Format::ALL {
            assert_eq!(f.to_string().parse::<Format>(), Ok(f));
        }
        let mut names: Vec<_> = Format::ALL.iter().map(|f| f.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Format::ALL.len());
    }

    #[test]
    fn unknown_name_lists_the_known_ones() {
        let err = "spc".parse::<Format>().unwrap_err();
        assert!(
            err.contains("umass-spc") && err.contains("disksim-ms"),
            "{err}"
        );
    }
}
