//! Fixed newstyle negotiation: greeting, client flags, and option haggling up
//! to the transmission phase.
//!
//! Generic over `Read + Write` so the whole handshake runs against in-memory
//! byte streams in tests and fuzzing. Option data is read into a buffer only
//! up to `MAX_OPTION_DATA`; longer options are skipped with a fixed scratch
//! buffer and refused, or the session is closed if even skipping is unreasonable.

use std::io::{self, Read, Write};

use crate::codec::{
    encode_info_block_size, encode_info_export, encode_option_reply, InfoRequest,
    MetaContextRequest, OptionHeader,
};
use crate::proto::*;

/// Largest option data read into memory (a GO with a 4096-byte name and a
/// generous list of information requests fits easily).
const MAX_OPTION_DATA: u32 = 64 * 1024;
/// Largest option data skipped before the session is closed instead.
const MAX_OPTION_SKIP: u32 = 16 * 1024 * 1024;
/// Metadata context id of `base:allocation`.
pub(crate) const BASE_ALLOCATION_ID: u32 = 1;
/// Minimum and preferred block sizes advertised in `NBD_INFO_BLOCK_SIZE`.
const MIN_BLOCK: u32 = 1;
const PREFERRED_BLOCK: u32 = 4096;

/// What the handshake needs to know about the one export served.
#[derive(Debug, Clone)]
pub(crate) struct ExportInfo {
    pub name: String,
    pub description: String,
    pub size_bytes: u64,
    pub read_only: bool,
    pub multi_conn: bool,
    pub max_payload: u32,
}

impl ExportInfo {
    /// Transmission flags for a session that has (or has not) negotiated
    /// structured replies.
    pub fn transmission_flags(&self, structured: bool) -> u16 {
        let mut flags = FLAG_HAS_FLAGS | FLAG_SEND_FLUSH;
        if self.read_only {
            flags |= FLAG_READ_ONLY;
        } else {
            flags |= FLAG_SEND_FUA | FLAG_SEND_TRIM | FLAG_SEND_WRITE_ZEROES | FLAG_SEND_FAST_ZERO;
        }
        if self.multi_conn {
            flags |= FLAG_CAN_MULTI_CONN;
        }
        if structured {
            // Reads are always answered in one chunk, so "don't fragment" is free.
            flags |= FLAG_SEND_DF;
        }
        flags
    }
}

/// The options a session agreed on before entering transmission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Negotiated {
    pub structured: bool,
    pub base_allocation: bool,
}

/// Per-connection state while options are being haggled.
struct Haggle<'a> {
    info: &'a ExportInfo,
    no_zeroes: bool,
    structured: bool,
    base_allocation: bool,
    /// Reply bytes for the current option, written in one go.
    out: Vec<u8>,
}

/// What to do after one option.
enum Next {
    Continue,
    Transmit,
    Close,
}

/// Runs the handshake. `Ok(None)`: the session ended (abort, hang-up or a
/// protocol violation); `Ok(Some(_))`: enter transmission.
pub(crate) fn negotiate<S: Read + Write>(
    stream: &mut S,
    info: &ExportInfo,
) -> io::Result<Option<Negotiated>> {
    let Some(mut h) = greet(stream, info)? else {
        return Ok(None);
    };
    let mut data = Vec::new();
    loop {
        let mut header = [0u8; OptionHeader::LEN];
        stream.read_exact(&mut header)?;
        let Ok(header) = OptionHeader::decode(&header) else {
            return Ok(None);
        };
        h.out.clear();
        let next = if header.data_len > MAX_OPTION_DATA {
            if header.option == OPT_EXPORT_NAME || header.data_len > MAX_OPTION_SKIP {
                return Ok(None);
            }
            skip(stream, header.data_len)?;
            h.error(header.option, REP_ERR_TOO_BIG, "option data too long");
            Next::Continue
        } else {
            data.resize(header.data_len as usize, 0);
            stream.read_exact(&mut data)?;
            h.option(header.option, &data)
        };
        stream.write_all(&h.out)?;
        match next {
            Next::Continue => {}
            Next::Transmit => {
                return Ok(Some(Negotiated {
                    structured: h.structured,
                    base_allocation: h.base_allocation,
                }))
            }
            Next::Close => return Ok(None),
        }
    }
}

/// Sends the greeting and reads the client's flags: the haggle that follows,
/// or None for flags the spec requires the server to drop the client for.
fn greet<'a, S: Read + Write>(stream: &mut S, info: &'a ExportInfo) -> io::Result<Option<Haggle<'a>>> {
    let mut greeting = [0u8; 18];
    greeting[..8].copy_from_slice(&NBDMAGIC.to_be_bytes());
    greeting[8..16].copy_from_slice(&IHAVEOPT.to_be_bytes());
    greeting[16..].copy_from_slice(&(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES).to_be_bytes());
    stream.write_all(&greeting)?;
    let mut client_flags = [0u8; 4];
    stream.read_exact(&mut client_flags)?;
    let client_flags = u32::from_be_bytes(client_flags);
    Ok((client_flags & !(FLAG_C_FIXED_NEWSTYLE | FLAG_C_NO_ZEROES) == 0).then(|| Haggle {
        info,
        no_zeroes: client_flags & FLAG_C_NO_ZEROES != 0,
        structured: false,
        base_allocation: false,
        out: Vec::with_capacity(256),
    }))
}

/// Options a refused client may send before it is closed.
const MAX_REFUSED_OPTIONS: usize = 16;

/// A handshake that admits no one: every option is answered
/// `NBD_REP_ERR_POLICY` with `why` (ABORT is acknowledged, EXPORT_NAME, which
/// cannot be answered with an error, closes), so the client learns why.
pub(crate) fn refuse<S: Read + Write>(stream: &mut S, info: &ExportInfo, why: &str) -> io::Result<()> {
    let Some(mut h) = greet(stream, info)? else {
        return Ok(());
    };
    for _ in 0..MAX_REFUSED_OPTIONS {
        let mut header = [0u8; OptionHeader::LEN];
        stream.read_exact(&mut header)?;
        let Ok(header) = OptionHeader::decode(&header) else {
            return Ok(());
        };
        if header.option == OPT_EXPORT_NAME || header.data_len > MAX_OPTION_DATA {
            return Ok(());
        }
        skip(stream, header.data_len)?;
        h.out.clear();
        if header.option == OPT_ABORT {
            h.reply(header.option, REP_ACK, &[]);
            return stream.write_all(&h.out);
        }
        h.error(header.option, REP_ERR_POLICY, why);
        stream.write_all(&h.out)?;
    }
    Ok(())
}

/// Reads and drops `len` bytes through a fixed buffer.
fn skip<R: Read>(r: &mut R, len: u32) -> io::Result<()> {
    let copied = io::copy(&mut r.take(u64::from(len)), &mut io::sink())?;
    if copied < u64::from(len) {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

impl Haggle<'_> {
    fn reply(&mut self, option: u32, reply_type: u32, data: &[u8]) {
        encode_option_reply(&mut self.out, option, reply_type, data);
    }

    fn error(&mut self, option: u32, reply_type: u32, message: &str) {
        self.reply(option, reply_type, message.as_bytes());
    }

    fn option(&mut self, option: u32, data: &[u8]) -> Next {
        match option {
            OPT_EXPORT_NAME => self.export_name(data),
            OPT_ABORT => {
                self.reply(option, REP_ACK, &[]);
                Next::Close
            }
            OPT_LIST => {
                if data.is_empty() {
                    let mut server = Vec::new();
                    server.extend_from_slice(&(self.info.name.len() as u32).to_be_bytes());
                    server.extend_from_slice(self.info.name.as_bytes());
                    server.extend_from_slice(self.info.description.as_bytes());
                    self.reply(option, REP_SERVER, &server);
                    self.reply(option, REP_ACK, &[]);
                } else {
                    self.error(option, REP_ERR_INVALID, "LIST takes no data");
                }
                Next::Continue
            }
            OPT_STARTTLS => {
                self.error(option, REP_ERR_UNSUP, "TLS is not supported by this server");
                Next::Continue
            }
            OPT_INFO | OPT_GO => self.info_or_go(option, data),
            OPT_STRUCTURED_REPLY => {
                if !data.is_empty() {
                    self.error(option, REP_ERR_INVALID, "STRUCTURED_REPLY takes no data");
                } else if self.structured {
                    self.error(
                        option,
                        REP_ERR_INVALID,
                        "structured replies already negotiated",
                    );
                } else {
                    self.structured = true;
                    self.reply(option, REP_ACK, &[]);
                }
                Next::Continue
            }
            OPT_LIST_META_CONTEXT | OPT_SET_META_CONTEXT => {
                self.meta_context(option, data);
                Next::Continue
            }
            _ => {
                self.error(option, REP_ERR_UNSUP, "option not supported");
                Next::Continue
            }
        }
    }

    fn export_name(&mut self, name: &[u8]) -> Next {
        if name != self.info.name.as_bytes() {
            return Next::Close; // No way to report an error to EXPORT_NAME.
        }
        self.out
            .extend_from_slice(&self.info.size_bytes.to_be_bytes());
        self.out
            .extend_from_slice(&self.info.transmission_flags(self.structured).to_be_bytes());
        if !self.no_zeroes {
            self.out.extend_from_slice(&[0u8; 124]);
        }
        Next::Transmit
    }

    fn info_or_go(&mut self, option: u32, data: &[u8]) -> Next {
        let req = match InfoRequest::decode(data) {
            Ok(req) => req,
            Err(e) => {
                self.error(option, REP_ERR_INVALID, &e.to_string());
                return Next::Continue;
            }
        };
        if req.name != self.info.name.as_bytes() {
            self.error(option, REP_ERR_UNKNOWN, "no such export");
            return Next::Continue;
        }
        let flags = self.info.transmission_flags(self.structured);
        self.reply(
            option,
            REP_INFO,
            &encode_info_export(self.info.size_bytes, flags),
        );
        if req.requests.contains(&INFO_NAME) {
            let mut name = INFO_NAME.to_be_bytes().to_vec();
            name.extend_from_slice(self.info.name.as_bytes());
            self.reply(option, REP_INFO, &name);
        }
        if req.requests.contains(&INFO_DESCRIPTION) && !self.info.description.is_empty() {
            let mut desc = INFO_DESCRIPTION.to_be_bytes().to_vec();
            desc.extend_from_slice(self.info.description.as_bytes());
            self.reply(option, REP_INFO, &desc);
        }
        // Always sent: harmless to clients that did not ask, needed by those that did.
        let block = encode_info_block_size(MIN_BLOCK, PREFERRED_BLOCK, self.info.max_payload);
        self.reply(option, REP_INFO, &block);
        self.reply(option, REP_ACK, &[]);
        if option == OPT_GO {
            Next::Transmit
        } else {
            Next::Continue
        }
    }

    /// LIST and SET of metadata contexts; only `base:allocation` exists.
    fn meta_context(&mut self, option: u32, data: &[u8]) {
        let set = option == OPT_SET_META_CONTEXT;
        if set {
            // Any SET replaces the previous selection, even a failing one.
            self.base_allocation = false;
        }
        if !self.structured {
            self.error(
                option,
                REP_ERR_INVALID,
                "negotiate structured replies first",
            );
            return;
        }
        let req = match MetaContextRequest::decode(data) {
            Ok(req) => req,
            Err(e) => {
                self.error(option, REP_ERR_INVALID, &e.to_string());
                return;
            }
        };
        if req.name != self.info.name.as_bytes() {
            self.error(option, REP_ERR_UNKNOWN, "no such export");
            return;
        }
        let matches = if set {
            req.queries.iter().any(|q| *q == BASE_ALLOCATION.as_bytes())
        } else {
            req.queries.is_empty()
                || req
                    .queries
                    .iter()
                    .any(|q| *q == b"base:" || *q == BASE_ALLOCATION.as_bytes())
        };
        if matches {
            let mut ctx = (if set { BASE_ALLOCATION_ID } else { 0 })
                .to_be_bytes()
                .to_vec();
            ctx.extend_from_slice(BASE_ALLOCATION.as_bytes());
            self.reply(option, REP_META_CONTEXT, &ctx);
            self.base_allocation = set;
        }
        self.reply(option, REP_ACK, &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::OptionReplyHeader;
    use proptest::prelude::*;

    /// An in-memory duplex: reads from `input`, records writes.
    struct Duplex {
        input: io::Cursor<Vec<u8>>,
        output: Vec<u8>,
    }
    impl Read for Duplex {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.input.read(buf)
        }
    }
    impl Write for Duplex {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.output.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn info() -> ExportInfo {
        ExportInfo {
            name: "disk".into(),
            description: "desc".into(),
            size_bytes: 1 << 20,
            read_only: false,
            multi_conn: true,
            max_payload: 1 << 25,
        }
    }

    fn option(opt: u32, data: &[u8]) -> Vec<u8> {
        let mut v = OptionHeader {
            option: opt,
            data_len: data.len() as u32,
        }
        .encode()
        .to_vec();
        v.extend_from_slice(data);
        v
    }

    /// Option replies as (option, reply type, data).
    type Replies = Vec<(u32, u32, Vec<u8>)>;

    fn run(input: Vec<u8>) -> (io::Result<Option<Negotiated>>, Replies) {
        let mut d = Duplex {
            input: io::Cursor::new(input),
            output: Vec::new(),
        };
        let result = negotiate(&mut d, &info());
        let mut replies = Vec::new();
        let mut rest = &d.output[18..];
        while rest.len() >= 20 {
            let Ok(h) = OptionReplyHeader::decode(rest[..20].try_into().unwrap()) else {
                break;
            };
            let end = 20 + h.data_len as usize;
            if end > rest.len() {
                break;
            }
            replies.push((h.option, h.reply_type, rest[20..end].to_vec()));
            rest = &rest[end..];
        }
        (result, replies)
    }

    fn client_flags() -> Vec<u8> {
        (FLAG_C_FIXED_NEWSTYLE | FLAG_C_NO_ZEROES)
            .to_be_bytes()
            .to_vec()
    }

    #[test]
    fn go_with_structured_and_meta_context() {
        let mut input = client_flags();
        input.extend(option(OPT_STRUCTURED_REPLY, &[]));
        let meta = MetaContextRequest {
            name: b"disk",
            queries: vec![b"base:allocation"],
        }
        .encode();
        input.extend(option(OPT_SET_META_CONTEXT, &meta));
        input.extend(option(
            OPT_GO,
            &InfoRequest {
                name: b"disk",
                requests: vec![INFO_BLOCK_SIZE],
            }
            .encode(),
        ));
        let (result, replies) = run(input);
        assert_eq!(
            result.unwrap(),
            Some(Negotiated {
                structured: true,
                base_allocation: true
            })
        );
        let types: Vec<u32> = replies.iter().map(|r| r.1).collect();
        assert_eq!(
            types,
            vec![
                REP_ACK,
                REP_META_CONTEXT,
                REP_ACK,
                REP_INFO,
                REP_INFO,
                REP_ACK
            ]
        );
        let export = &replies[3].2;
        assert_eq!(export.len(), 12);
        assert_eq!(&export[2..10], &(1u64 << 20).to_be_bytes());
        let flags = u16::from_be_bytes([export[10], export[11]]);
        assert_ne!(flags & FLAG_SEND_DF, 0);
        assert_eq!(&replies[4].2, &encode_info_block_size(1, 4096, 1 << 25));
    }

    #[test]
    fn unknown_export_unknown_option_and_tls_are_errors() {
        let mut input = client_flags();
        input.extend(option(
            OPT_GO,
            &InfoRequest {
                name: b"nope",
                requests: vec![],
            }
            .encode(),
        ));
        input.extend(option(999, b"xyz"));
        input.extend(option(OPT_STARTTLS, &[]));
        input.extend(option(OPT_SET_META_CONTEXT, &[]));
        input.extend(option(OPT_GO, &[1, 2, 3]));
        input.extend(option(OPT_ABORT, &[]));
        let (result, replies) = run(input);
        assert_eq!(result.unwrap(), None);
        let types: Vec<u32> = replies.iter().map(|r| r.1).collect();
        assert_eq!(
            types,
            vec![
                REP_ERR_UNKNOWN,
                REP_ERR_UNSUP,
                REP_ERR_UNSUP,
                REP_ERR_INVALID,
                REP_ERR_INVALID,
                REP_ACK
            ]
        );
    }

    #[test]
    fn oversized_option_is_skipped_then_refused() {
        let mut input = client_flags();
        input.extend(option(OPT_GO, &vec![0u8; MAX_OPTION_DATA as usize + 1]));
        input.extend(option(OPT_LIST, &[]));
        let (result, replies) = run(input);
        assert!(result.is_err()); // input ends: the client hung up
        assert_eq!(replies[0].1, REP_ERR_TOO_BIG);
        assert_eq!(replies[1].1, REP_SERVER);
        assert_eq!(&replies[1].2[..8], &[0, 0, 0, 4, b'd', b'i', b's', b'k']);
        assert_eq!(replies[2].1, REP_ACK);
    }

    #[test]
    fn huge_option_length_closes_without_reading() {
        let mut input = client_flags();
        input.extend(
            OptionHeader {
                option: OPT_GO,
                data_len: u32::MAX,
            }
            .encode(),
        );
        let (result, replies) = run(input);
        assert_eq!(result.unwrap(), None);
        assert!(replies.is_empty());
    }

    #[test]
    fn export_name_and_unknown_client_flags() {
        let mut input = client_flags();
        input.extend(option(OPT_EXPORT_NAME, b"disk"));
        let mut d = Duplex {
            input: io::Cursor::new(input),
            output: Vec::new(),
        };
        assert!(negotiate(&mut d, &info()).unwrap().is_some());
        assert_eq!(d.output.len(), 18 + 10); // no zero padding
        let mut d = Duplex {
            input: io::Cursor::new(vec![0, 0, 0, 4]),
            output: Vec::new(),
        };
        assert_eq!(negotiate(&mut d, &info()).unwrap(), None);
    }

    proptest! {
        #[test]
        fn arbitrary_handshake_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..400)) {
            let mut input = client_flags();
            input.extend_from_slice(&IHAVEOPT.to_be_bytes());
            input.extend(tail);
            let _ = run(input);
        }

        #[test]
        fn arbitrary_option_data_never_panics(opt in 0u32..12, data in proptest::collection::vec(any::<u8>(), 0..200)) {
            let mut input = client_flags();
            input.extend(option(OPT_STRUCTURED_REPLY, &[]));
            input.extend(option(opt, &data));
            let (_, replies) = run(input);
            prop_assert!(!replies.is_empty());
        }
    }
}
