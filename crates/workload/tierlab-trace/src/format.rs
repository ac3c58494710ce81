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
    /// The layout public SSD-research replayers read: `ts_ms devno offset_bytes
    /// size_bytes op`, op 1 = read, 0 = write; DiskSim's fields with the arrival in
    /// (possibly fractional) milliseconds and the offset and size in bytes.
    SsdReplay,
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
    /// SNIA SYSTOR '17 (Fujitsu VDI) CSV: `Timestamp,Response,IOType,LUN,Offset,Size`,
    /// Unix seconds with a fraction, bytes; the LUN is the volume. The files are written
    /// in completion order, a few ms out of arrival order, so this format is always read
    /// through the sort window (see [`Format::sorts_by_default`]).
    Systor17,
    /// Alibaba Cloud block traces (2020) CSV without header:
    /// `device_id,opcode,offset,length,timestamp`, bytes and microseconds.
    AlibabaBlock,
    /// libCacheSim's `oracleGeneral` binary records (24 bytes, little-endian): `u32
    /// clock_time` (seconds), `u64 obj_id`, `u32 obj_size` (bytes), `i64
    /// next_access_vtime` (not used). An object trace.
    ///
    /// Each object request becomes a read on volume 0 at byte offset `obj_id × 512` — the
    /// object id is the sector number, which is the key of `tierlab-placement`'s `request`
    /// objects (`offset_bytes / 512`), as a CloudPhysics `lbn` is libCacheSim's object id
    /// — of `obj_size` bytes, at `clock_time` seconds. Records of size 0 are skipped (as
    /// libCacheSim does); ids of 2^55 or more (no byte offset) are errors. Objects above
    /// 512 bytes overlap their neighbours' sectors: block or byte-address views of such a
    /// trace (4 KiB blocks, working-set bytes) mean nothing; whole-request views do.
    OracleGeneral,
    /// libCacheSim's `binary` trace of bare little-endian `u32` object ids (its format
    /// string `<I`). An object trace; never detected from the content.
    ///
    /// Each id becomes a 512-byte read on volume 0 at byte offset `id × 512` (one sector
    /// per object, so objects never overlap; see [`Format::OracleGeneral`]), at time
    /// `index` ns for the record's 0-based index: a virtual clock of one request per
    /// nanosecond. Replay it closed-loop.
    BinaryU32,
    /// libCacheSim's `binary` trace of bare little-endian `u64` object ids (its format
    /// string `<Q`), read as [`Format::BinaryU32`] is; ids of 2^55 or more are errors.
    BinaryU64,
    /// Bare big-endian `u32` object ids (libCacheSim's format string `>I`), read as
    /// [`Format::BinaryU32`] is; never detected from the content.
    BinaryU32Be,
    /// Bare big-endian `u64` object ids (libCacheSim's format string `>Q`), read as
    /// [`Format::BinaryU64`] is; never detected from the content.
    BinaryU64Be,
}

impl Format {
    /// Every format, in the order content detection tries them. The binary formats come
    /// last: they are recognised apart from the text ones (see [`crate::detect`]).
    pub const ALL: [Format; 19] = [
        Format::FioIolog,
        Format::Blkparse,
        Format::Blkreplay,
        Format::DisksimValidate,
        Format::Fiu,
        Format::Disksim,
        Format::DisksimMs,
        Format::SsdReplay,
        Format::Msr,
        Format::Cloudphysics,
        Format::TencentCbs,
        Format::UmassSpc,
        Format::Systor17,
        Format::AlibabaBlock,
        Format::OracleGeneral,
        Format::BinaryU32,
        Format::BinaryU64,
        Format::BinaryU32Be,
        Format::BinaryU64Be,
    ];

    /// The kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Disksim => "disksim",
            Format::DisksimMs => "disksim-ms",
            Format::SsdReplay => "ssd-replay",
            Format::Cloudphysics => "cloudphysics",
            Format::Blkreplay => "blkreplay",
            Format::Fiu => "fiu",
            Format::Msr => "msr",
            Format::TencentCbs => "tencent-cbs",
            Format::UmassSpc => "umass-spc",
            Format::Blkparse => "blkparse",
            Format::FioIolog => "fio-iolog",
            Format::DisksimValidate => "disksim-validate",
            Format::Systor17 => "systor17",
            Format::AlibabaBlock => "alibaba-block",
            Format::OracleGeneral => "oracle-general",
            Format::BinaryU32 => "binary-u32",
            Format::BinaryU64 => "binary-u64",
            Format::BinaryU32Be => "binary-u32-be",
            Format::BinaryU64Be => "binary-u64-be",
        }
    }

    /// One line saying what the format is, for listings.
    pub fn description(self) -> &'static str {
        match self {
            Format::Disksim => {
                "DiskSim/MQSim ASCII: arrival_ns devno lba_sectors size_sectors op(1=read)"
            }
            Format::DisksimMs => "DiskSim ASCII with arrival in (fractional) milliseconds",
            Format::SsdReplay => {
                "SSD-research replayer: ts_ms devno offset_bytes size_bytes op(1=read)"
            }
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
            Format::Systor17 => {
                "SNIA SYSTOR '17 CSV: Timestamp_s,Response,IOType(R|W),LUN,Offset_bytes,Size_bytes; \
                 written in completion order, so always sorted within a 1 s window"
            }
            Format::AlibabaBlock => {
                "Alibaba block CSV: device_id,opcode(R|W),offset_bytes,length_bytes,timestamp_us"
            }
            Format::OracleGeneral => {
                "libCacheSim oracleGeneral binary: u32 time_s, u64 obj_id, u32 obj_size, i64 next"
            }
            Format::BinaryU32 => {
                "libCacheSim binary <I: little-endian u32 object ids (forced with --format only)"
            }
            Format::BinaryU64 => {
                "libCacheSim binary <Q: little-endian u64 object ids (forced with --format only)"
            }
            Format::BinaryU32Be => {
                "libCacheSim binary >I: big-endian u32 object ids (forced with --format only)"
            }
            Format::BinaryU64Be => {
                "libCacheSim binary >Q: big-endian u64 object ids (forced with --format only)"
            }
        }
    }

    /// Whether the format is binary (fixed-size records rather than lines).
    pub fn is_binary(self) -> bool {
        self.record_bytes().is_some()
    }

    /// The size of one record of a binary format; `None` for the text formats.
    pub fn record_bytes(self) -> Option<usize> {
        match self {
            Format::OracleGeneral => Some(24),
            Format::BinaryU32 | Format::BinaryU32Be => Some(4),
            Format::BinaryU64 | Format::BinaryU64Be => Some(8),
            _ => None,
        }
    }

    /// Whether the format is a stream of bare object ids (libCacheSim's `binary` traces:
    /// no sizes, no operations, no times).
    pub fn is_id_stream(self) -> bool {
        matches!(
            self,
            Format::BinaryU32 | Format::BinaryU64 | Format::BinaryU32Be | Format::BinaryU64Be
        )
    }

    /// Whether the format is read through the sort window whatever
    /// [`crate::ReadOptions::sort`] says: its files are written out of arrival order by
    /// design (SYSTOR '17: completion order, a few ms out). The window is
    /// [`crate::ReadOptions::sort_window_ns`] (1 s by default) and at most
    /// [`crate::SORT_MAX_RECORDS`] records, so memory stays bounded.
    pub fn sorts_by_default(self) -> bool {
        self == Format::Systor17
    }

    /// The field names of the header line of a CSV format that has one, compared without
    /// regard to case. Free text before the header (a preamble) is skipped when the header
    /// is found within the first [`crate::detect::PREAMBLE_MAX_LINES`] lines.
    pub(crate) fn header(self) -> Option<&'static [&'static str]> {
        match self {
            Format::Cloudphysics => Some(&["version", "time", "op", "size", "lbn"]),
            Format::Systor17 => Some(&["Timestamp", "Response", "IOType", "LUN", "Offset", "Size"]),
            _ => None,
        }
    }

    /// File-name endings (before any compression suffix) that suggest this format. A
    /// matching ending makes detection try this format first; the content must still
    /// parse. (libCacheSim's `oracleGeneral` names are recognised separately, by a
    /// `.oracleGeneral` anywhere in the name: see [`crate::detect`].)
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
            Format::Cloudphysics
            | Format::Msr
            | Format::TencentCbs
            | Format::Systor17
            | Format::AlibabaBlock
            | Format::SsdReplay
            | Format::OracleGeneral
            | Format::BinaryU32
            | Format::BinaryU64
            | Format::BinaryU32Be
            | Format::BinaryU64Be => &[],
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

/// A format is written as its name and read as [`FromStr`] reads it.
impl serde::Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Format {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

impl FromStr for Format {
    type Err = String;

    /// A name from [`Format::ALL`], in any case; hyphens may be left out, so libCacheSim's
    /// spelling `oracleGeneral` names `oracle-general`. libCacheSim's format strings of
    /// its `binary` id streams (`<I`, `<Q`, `>I`, `>Q`) name them too.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "<I" => return Ok(Format::BinaryU32),
            "<Q" => return Ok(Format::BinaryU64),
            ">I" => return Ok(Format::BinaryU32Be),
            ">Q" => return Ok(Format::BinaryU64Be),
            _ => {}
        }
        let squeeze = |name: &str| -> String {
            name.chars()
                .filter(|&c| c != '-')
                .map(|c| c.to_ascii_lowercase())
                .collect()
        };
        let wanted = squeeze(s);
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s) || squeeze(f.name()) == wanted)
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
    fn hyphens_and_case_are_optional_in_names() {
        assert_eq!("oracleGeneral".parse::<Format>(), Ok(Format::OracleGeneral));
        assert_eq!("Binary-U64".parse::<Format>(), Ok(Format::BinaryU64));
        assert_eq!("SYSTOR17".parse::<Format>(), Ok(Format::Systor17));
        assert!("oracle".parse::<Format>().is_err());
        assert_eq!(">Q".parse::<Format>(), Ok(Format::BinaryU64Be));
        assert_eq!("binary-u32-be".parse::<Format>(), Ok(Format::BinaryU32Be));
        assert_eq!("<I".parse::<Format>(), Ok(Format::BinaryU32));
    }

    #[test]
    fn binary_formats_have_record_sizes_and_text_ones_none() {
        let binary: Vec<_> = Format::ALL.into_iter().filter(|f| f.is_binary()).collect();
        assert_eq!(
            binary,
            [
                Format::OracleGeneral,
                Format::BinaryU32,
                Format::BinaryU64,
                Format::BinaryU32Be,
                Format::BinaryU64Be
            ]
        );
        assert_eq!(Format::BinaryU64Be.record_bytes(), Some(8));
        assert_eq!(Format::OracleGeneral.record_bytes(), Some(24));
        assert_eq!(Format::Systor17.record_bytes(), None);
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
