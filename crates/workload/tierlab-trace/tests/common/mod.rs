//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::io::{Cursor, Write};
use tierlab_trace::{Format, ReadOptions, TraceError, TraceReader};
use tierlab_types::IoRequest;

/// Reads all of `bytes` (named `name`) with `opts`.
pub fn read_all(
    bytes: &[u8],
    name: &str,
    opts: &ReadOptions,
) -> Result<Vec<IoRequest>, TraceError> {
    TraceReader::from_bufread(Cursor::new(bytes.to_vec()), name, opts)?.collect()
}

/// The error reading `bytes` ends in, as text (panics if it reads cleanly).
pub fn error_text(bytes: &[u8], name: &str, opts: &ReadOptions) -> String {
    match read_all(bytes, name, opts) {
        Ok(r) => panic!("expected an error, read {} requests", r.len()),
        Err(e) => e.to_string(),
    }
}

pub const CODECS: [&str; 4] = ["gzip", "bzip2", "xz", "zstd"];

/// `data` compressed with `codec`.
pub fn compress(codec: &str, data: &[u8]) -> Vec<u8> {
    match codec {
        "gzip" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "bzip2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "xz" => {
            let mut e = xz2::write::XzEncoder::new(Vec::new(), 6);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        "zstd" => zstd::stream::encode_all(data, 3).unwrap(),
        other => panic!("unknown codec {other}"),
    }
}

pub const UMASS: &str = "\
0,303567,3584,w,0.000000
1,55590,3072,r,0.000000
0,303574,3584,W,0.026214,extra,fields
";

pub const BLKPARSE: &str = "\
  8,0    3        1     0.000000000   697  A   W 223490 + 8 <- (8,1) 223427
  8,0    3        2     0.000001000   697  Q   W 223490 + 8 [kjournald]
  8,0    3        3     0.000003000   697  G   W 223490 + 8 [kjournald]
  8,0    3        4     0.000005000   697  P   N [kjournald]
  8,0    3        5     0.000006000   697  I   W 223490 + 8 [kjournald]
  8,0    3        6     0.000008000   697  D   W 223490 + 8 [kjournald]
  8,0    1        1     0.000100000     0  C   W 223490 + 8 [0]
  8,16   0        7     0.001000000  1234  Q  RA 1000 + 16 [cat]
  8,16   0        8     0.001100000  1234  D  RA 1000 + 16 [cat]
  8,0    0        0     0.001200000     0  m   N cfq697 slice expired
  8,0    2        9     0.002000000   700  D FWS [jbd2/sda1-8]
  8,16   0       10     0.002100000  1234  C   R 1000 + 16 [0]
CPU0 (8,0):
 Reads Queued:           0,        0KiB\t Writes Queued:           1,        4KiB
Total (8,0):
Throughput (R/W): 0KiB/s / 4KiB/s
Events (8,0): 11 entries
Skips: 0 forward (0 -   0.0%)
";

pub const FIO_V2: &str = "\
fio version 2 iolog
/dev/sdb add
/dev/sdb open
/dev/sdb write 0 4096
/dev/sdb wait 1000 0
/dev/sdb read 4096 8192
/dev/sdc add
/dev/sdc read 0 512
/dev/sdb sync 0 0
/dev/sdb trim 0 4096
/dev/sdb close
";

pub const FIO_V3: &str = "\
fio version 3 iolog
0 /dev/nvme0n1 add
0 /dev/nvme0n1 open
10 /dev/nvme0n1 read 0 4096
250 /dev/nvme0n1 write 8192 4096
1000 /dev/nvme0n1 close
";

/// SNIA SYSTOR '17: the header, a request, a line with a blank IOType (no response: not a
/// request), and a request on another LUN.
pub const SYSTOR: &str = "\
Timestamp,Response,IOType,LUN,Offset,Size
1456135200.013118000,0.000806000,R,4,899056122368,131072
1456135200.250000000,,,4,0,0
1456135200.500000500,0.001000000,W,6,4096,4096
";

/// Alibaba block traces: `device_id,opcode,offset,length,timestamp_us`, no header.
pub const ALIBABA: &str = "\
3,R,126703644672,4096,1577808000000626
999,W,0,512,1577808000001000
";

/// One libCacheSim `oracleGeneral` record: clock_time, obj_id, obj_size,
/// next_access_vtime, little-endian.
pub fn oracle_record(clock: u32, id: u64, size: u32, next: i64) -> Vec<u8> {
    let mut r = clock.to_le_bytes().to_vec();
    r.extend(id.to_le_bytes());
    r.extend(size.to_le_bytes());
    r.extend(next.to_le_bytes());
    r
}

/// A few lines of each format that has a shared sample, to run through every codec.
pub const OTHERS: [(Format, &str); 8] = [
    (Format::Disksim, "100 0 8 8 1\n200 1 16 8 0\n"),
    (Format::DisksimMs, "0.5 0 8 8 1\n1.25 1 16 8 0\n"),
    (Format::Cloudphysics, "version,time,op,size,lbn\n1,10,28,4096,8\n1,11,2a,512,16\n"),
    (Format::Blkreplay, "licence text\n#####\nstart ; sector; length ; op ;  replay_delay=0 ; replay_duration=0\n  0.5 ; 8 ; 8 ; R ; 0.0 ; 0.0\n 1.0 ; 16 ; 8 ; W ; 0.0 ; 0.0\n"),
    (Format::Fiu, "1000 1 nfsd 8 8 R 8 1 abc\n2000 1 nfsd 16 8 W 8 1 def\n"),
    (Format::Msr, "128166385295514663,hm,1,Read,4096,4096,10\n128166385295524663,hm,1,Write,0,512,10\n"),
    (Format::TencentCbs, "1538323200,8,8,0,7\n1538323201,16,8,1,7\n"),
    (Format::DisksimValidate, "R Hit 8 8 100.0 900.0\nW Miss 16 8 50.5 0.5\n"),
];

/// The SSD-research replayer layout, in bytes: 16 KiB requests (8 MiB read as sectors,
/// which rules that reading out, so it is detected).
pub const SSD_REPLAY: &str = "0.5 0 4096 16384 1\n1.25 1 8192 16384 0\n";

/// One valid sample of every format.
pub fn all_samples() -> Vec<(Format, &'static str)> {
    let mut samples = vec![
        (Format::UmassSpc, UMASS),
        (Format::Blkparse, BLKPARSE),
        (Format::FioIolog, FIO_V2),
        (Format::FioIolog, FIO_V3),
        (Format::Systor17, SYSTOR),
        (Format::AlibabaBlock, ALIBABA),
        (Format::SsdReplay, SSD_REPLAY),
    ];
    samples.extend(OTHERS);
    samples
}
