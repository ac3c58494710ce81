//! Wire encoding and decoding as pure functions over byte slices.
//!
//! Nothing here touches a socket, so every parser can be fuzzed with arbitrary
//! bytes. Decoders never panic and never allocate more than their input's
//! length; encoders are the exact inverse, which the tests check by round trip.

use crate::proto::*;

/// Why a message could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodecError {
    /// The magic number is not the one this message must start with.
    BadMagic,
    /// A length field points beyond the data, or bytes are left over.
    BadLength,
    /// A string is longer than the protocol's 4096-byte limit.
    StringTooLong,
}

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CodecError::BadMagic => "bad magic number",
            CodecError::BadLength => "length field inconsistent with data",
            CodecError::StringTooLong => "string longer than 4096 bytes",
        })
    }
}

impl std::error::Error for CodecError {}

/// A cursor over a byte slice whose reads fail instead of panicking.
struct Cursor<'a> {
    data: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], CodecError> {
        if n > self.data.len() {
            return Err(CodecError::BadLength);
        }
        let (head, tail) = self.data.split_at(n);
        self.data = tail;
        Ok(head)
    }
    fn u16(&mut self) -> Result<u16, CodecError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, CodecError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> Result<u64, CodecError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }
    /// A string prefixed by a 32-bit length.
    fn string(&mut self) -> Result<&'a [u8], CodecError> {
        let len = self.u32()? as usize;
        if len > MAX_STRING_BYTES {
            return Err(CodecError::StringTooLong);
        }
        self.take(len)
    }
    fn finish(&self) -> Result<(), CodecError> {
        if self.data.is_empty() {
            Ok(())
        } else {
            Err(CodecError::BadLength)
        }
    }
}

/// The fixed 16-byte header of a client option: `IHAVEOPT`, option, data length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionHeader {
    pub option: u32,
    pub data_len: u32,
}

impl OptionHeader {
    pub const LEN: usize = 16;

    pub fn decode(buf: &[u8; Self::LEN]) -> Result<Self, CodecError> {
        let mut c = Cursor { data: buf };
        if c.u64()? != IHAVEOPT {
            return Err(CodecError::BadMagic);
        }
        Ok(OptionHeader {
            option: c.u32()?,
            data_len: c.u32()?,
        })
    }

    pub fn encode(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        out[..8].copy_from_slice(&IHAVEOPT.to_be_bytes());
        out[8..12].copy_from_slice(&self.option.to_be_bytes());
        out[12..].copy_from_slice(&self.data_len.to_be_bytes());
        out
    }
}

/// The data of `NBD_OPT_INFO` / `NBD_OPT_GO`: an export name and the
/// information types the client asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfoRequest<'a> {
    pub name: &'a [u8],
    pub requests: Vec<u16>,
}

impl<'a> InfoRequest<'a> {
    pub fn decode(data: &'a [u8]) -> Result<Self, CodecError> {
        let mut c = Cursor { data };
        let name = c.string()?;
        let count = c.u16()? as usize;
        if c.data.len() != count * 2 {
            return Err(CodecError::BadLength);
        }
        let mut requests = Vec::with_capacity(count);
        for _ in 0..count {
            requests.push(c.u16()?);
        }
        Ok(InfoRequest { name, requests })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(6 + self.name.len() + 2 * self.requests.len());
        out.extend_from_slice(&(self.name.len() as u32).to_be_bytes());
        out.extend_from_slice(self.name);
        out.extend_from_slice(&(self.requests.len() as u16).to_be_bytes());
        for r in &self.requests {
            out.extend_from_slice(&r.to_be_bytes());
        }
        out
    }
}

/// The data of `NBD_OPT_LIST_META_CONTEXT` / `NBD_OPT_SET_META_CONTEXT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaContextRequest<'a> {
    pub name: &'a [u8],
    pub queries: Vec<&'a [u8]>,
}

impl<'a> MetaContextRequest<'a> {
    pub fn decode(data: &'a [u8]) -> Result<Self, CodecError> {
        let mut c = Cursor { data };
        let name = c.string()?;
        let count = c.u32()? as usize;
        // Each query takes at least 4 bytes: bound the allocation by the data.
        if count > c.data.len() / 4 {
            return Err(CodecError::BadLength);
        }
        let mut queries = Vec::with_capacity(count);
        for _ in 0..count {
            queries.push(c.string()?);
        }
        c.finish()?;
        Ok(MetaContextRequest { name, queries })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.name.len() as u32).to_be_bytes());
        out.extend_from_slice(self.name);
        out.extend_from_slice(&(self.queries.len() as u32).to_be_bytes());
        for q in &self.queries {
            out.extend_from_slice(&(q.len() as u32).to_be_bytes());
            out.extend_from_slice(q);
        }
        out
    }
}

/// The 20-byte header of an option reply; its data follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionReplyHeader {
    pub option: u32,
    pub reply_type: u32,
    pub data_len: u32,
}

impl OptionReplyHeader {
    pub const LEN: usize = 20;

    pub fn decode(buf: &[u8; Self::LEN]) -> Result<Self, CodecError> {
        let mut c = Cursor { data: buf };
        if c.u64()? != OPTION_REPLY_MAGIC {
            return Err(CodecError::BadMagic);
        }
        Ok(OptionReplyHeader {
            option: c.u32()?,
            reply_type: c.u32()?,
            data_len: c.u32()?,
        })
    }
}

/// Appends one option reply (header and data) to `out`.
pub fn encode_option_reply(out: &mut Vec<u8>, option: u32, reply_type: u32, data: &[u8]) {
    out.extend_from_slice(&OPTION_REPLY_MAGIC.to_be_bytes());
    out.extend_from_slice(&option.to_be_bytes());
    out.extend_from_slice(&reply_type.to_be_bytes());
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(data);
}

/// Payload of `NBD_INFO_EXPORT`: size and transmission flags.
pub fn encode_info_export(size_bytes: u64, transmission_flags: u16) -> [u8; 12] {
    let mut out = [0u8; 12];
    out[..2].copy_from_slice(&INFO_EXPORT.to_be_bytes());
    out[2..10].copy_from_slice(&size_bytes.to_be_bytes());
    out[10..].copy_from_slice(&transmission_flags.to_be_bytes());
    out
}

/// Payload of `NBD_INFO_BLOCK_SIZE`: minimum, preferred, maximum payload.
pub fn encode_info_block_size(minimum: u32, preferred: u32, maximum: u32) -> [u8; 14] {
    let mut out = [0u8; 14];
    out[..2].copy_from_slice(&INFO_BLOCK_SIZE.to_be_bytes());
    out[2..6].copy_from_slice(&minimum.to_be_bytes());
    out[6..10].copy_from_slice(&preferred.to_be_bytes());
    out[10..].copy_from_slice(&maximum.to_be_bytes());
    out
}

/// A transmission request header (the 28 bytes before any write payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub flags: u16,
    pub command: u16,
    pub cookie: u64,
    pub offset: u64,
    pub length: u32,
}

impl Request {
    pub const LEN: usize = 28;

    pub fn decode(buf: &[u8; Self::LEN]) -> Result<Self, CodecError> {
        let mut c = Cursor { data: buf };
        if c.u32()? != REQUEST_MAGIC {
            return Err(CodecError::BadMagic);
        }
        Ok(Request {
            flags: c.u16()?,
            command: c.u16()?,
            cookie: c.u64()?,
            offset: c.u64()?,
            length: c.u32()?,
        })
    }

    pub fn encode(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        out[..4].copy_from_slice(&REQUEST_MAGIC.to_be_bytes());
        out[4..6].copy_from_slice(&self.flags.to_be_bytes());
        out[6..8].copy_from_slice(&self.command.to_be_bytes());
        out[8..16].copy_from_slice(&self.cookie.to_be_bytes());
        out[16..24].copy_from_slice(&self.offset.to_be_bytes());
        out[24..].copy_from_slice(&self.length.to_be_bytes());
        out
    }
}

/// A simple reply: error (0 = success) and cookie; read data may follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimpleReply {
    pub error: u32,
    pub cookie: u64,
}

impl SimpleReply {
    pub const LEN: usize = 16;

    pub fn decode(buf: &[u8; Self::LEN]) -> Result<Self, CodecError> {
        let mut c = Cursor { data: buf };
        if c.u32()? != SIMPLE_REPLY_MAGIC {
            return Err(CodecError::BadMagic);
        }
        Ok(SimpleReply {
            error: c.u32()?,
            cookie: c.u64()?,
        })
    }

    pub fn encode(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        out[..4].copy_from_slice(&SIMPLE_REPLY_MAGIC.to_be_bytes());
        out[4..8].copy_from_slice(&self.error.to_be_bytes());
        out[8..].copy_from_slice(&self.cookie.to_be_bytes());
        out
    }
}

/// The 20-byte header of a structured reply chunk; `length` payload bytes follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkHeader {
    pub flags: u16,
    pub chunk_type: u16,
    pub cookie: u64,
    pub length: u32,
}

impl ChunkHeader {
    pub const LEN: usize = 20;

    pub fn decode(buf: &[u8; Self::LEN]) -> Result<Self, CodecError> {
        let mut c = Cursor { data: buf };
        if c.u32()? != STRUCTURED_REPLY_MAGIC {
            return Err(CodecError::BadMagic);
        }
        Ok(ChunkHeader {
            flags: c.u16()?,
            chunk_type: c.u16()?,
            cookie: c.u64()?,
            length: c.u32()?,
        })
    }

    pub fn encode(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        out[..4].copy_from_slice(&STRUCTURED_REPLY_MAGIC.to_be_bytes());
        out[4..6].copy_from_slice(&self.flags.to_be_bytes());
        out[6..8].copy_from_slice(&self.chunk_type.to_be_bytes());
        out[8..16].copy_from_slice(&self.cookie.to_be_bytes());
        out[16..].copy_from_slice(&self.length.to_be_bytes());
        out
    }
}

/// Appends a final `NBD_REPLY_TYPE_ERROR` chunk (header and payload) to `out`.
pub fn encode_error_chunk(out: &mut Vec<u8>, cookie: u64, error: u32, message: &str) {
    let msg = &message.as_bytes()[..message.len().min(MAX_STRING_BYTES)];
    let header = ChunkHeader {
        flags: REPLY_FLAG_DONE,
        chunk_type: REPLY_TYPE_ERROR,
        cookie,
        length: 6 + msg.len() as u32,
    };
    out.extend_from_slice(&header.encode());
    out.extend_from_slice(&error.to_be_bytes());
    out.extend_from_slice(&(msg.len() as u16).to_be_bytes());
    out.extend_from_slice(msg);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn info_request_rejects_name_longer_than_data() {
        let mut data = 10u32.to_be_bytes().to_vec();
        data.extend_from_slice(b"abc\0\0");
        assert_eq!(InfoRequest::decode(&data), Err(CodecError::BadLength));
    }

    #[test]
    fn info_request_rejects_trailing_bytes() {
        let mut data = InfoRequest {
            name: b"x",
            requests: vec![3],
        }
        .encode();
        data.push(0);
        assert_eq!(InfoRequest::decode(&data), Err(CodecError::BadLength));
    }

    #[test]
    fn meta_context_count_is_bounded_by_data() {
        let mut data = 0u32.to_be_bytes().to_vec();
        data.extend_from_slice(&u32::MAX.to_be_bytes());
        assert_eq!(
            MetaContextRequest::decode(&data),
            Err(CodecError::BadLength)
        );
    }

    #[test]
    fn long_strings_are_refused() {
        let mut data = 5000u32.to_be_bytes().to_vec();
        data.extend(std::iter::repeat_n(b'a', 5000));
        data.extend_from_slice(&[0, 0]);
        assert_eq!(InfoRequest::decode(&data), Err(CodecError::StringTooLong));
    }

    #[test]
    fn request_bad_magic() {
        let mut b = Request {
            flags: 0,
            command: 0,
            cookie: 1,
            offset: 0,
            length: 1,
        }
        .encode();
        b[0] ^= 1;
        assert_eq!(Request::decode(&b), Err(CodecError::BadMagic));
    }

    #[test]
    fn error_chunk_layout() {
        let mut out = Vec::new();
        encode_error_chunk(&mut out, 7, EINVAL, "no");
        let h = ChunkHeader::decode(out[..20].try_into().unwrap()).unwrap();
        assert_eq!(
            h,
            ChunkHeader {
                flags: 1,
                chunk_type: REPLY_TYPE_ERROR,
                cookie: 7,
                length: 8
            }
        );
        assert_eq!(&out[20..], &[0, 0, 0, 22, 0, 2, b'n', b'o']);
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = InfoRequest::decode(&data);
            let _ = MetaContextRequest::decode(&data);
            let mut h16 = [0u8; 16];
            let mut h20 = [0u8; 20];
            let mut h28 = [0u8; 28];
            let n = data.len();
            h16[..n.min(16)].copy_from_slice(&data[..n.min(16)]);
            h20[..n.min(20)].copy_from_slice(&data[..n.min(20)]);
            h28[..n.min(28)].copy_from_slice(&data[..n.min(28)]);
            let _ = OptionHeader::decode(&h16);
            let _ = SimpleReply::decode(&h16);
            let _ = OptionReplyHeader::decode(&h20);
            let _ = ChunkHeader::decode(&h20);
            let _ = Request::decode(&h28);
        }

        #[test]
        fn request_round_trip(flags: u16, command: u16, cookie: u64, offset: u64, length: u32) {
            let r = Request { flags, command, cookie, offset, length };
            prop_assert_eq!(Request::decode(&r.encode()), Ok(r));
        }

        #[test]
        fn option_header_round_trip(option: u32, data_len: u32) {
            let h = OptionHeader { option, data_len };
            prop_assert_eq!(OptionHeader::decode(&h.encode()), Ok(h));
        }

        #[test]
        fn replies_round_trip(error: u32, cookie: u64, flags: u16, chunk_type: u16, length: u32) {
            let s = SimpleReply { error, cookie };
            prop_assert_eq!(SimpleReply::decode(&s.encode()), Ok(s));
            let c = ChunkHeader { flags, chunk_type, cookie, length };
            prop_assert_eq!(ChunkHeader::decode(&c.encode()), Ok(c));
        }

        #[test]
        fn info_request_round_trip(
            name in proptest::collection::vec(any::<u8>(), 0..64),
            requests in proptest::collection::vec(any::<u16>(), 0..8),
        ) {
            let r = InfoRequest { name: &name, requests };
            let bytes = r.encode();
            prop_assert_eq!(InfoRequest::decode(&bytes), Ok(r));
        }

        #[test]
        fn meta_context_round_trip(
            name in proptest::collection::vec(any::<u8>(), 0..64),
            queries in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..32), 0..6),
        ) {
            let r = MetaContextRequest { name: &name, queries: queries.iter().map(|q| q.as_slice()).collect() };
            let bytes = r.encode();
            prop_assert_eq!(MetaContextRequest::decode(&bytes), Ok(r));
        }

        #[test]
        fn option_reply_round_trip(option: u32, reply_type: u32, data in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut out = Vec::new();
            encode_option_reply(&mut out, option, reply_type, &data);
            let h = OptionReplyHeader::decode(out[..20].try_into().unwrap()).unwrap();
            prop_assert_eq!(h, OptionReplyHeader { option, reply_type, data_len: data.len() as u32 });
            prop_assert_eq!(&out[20..], &data[..]);
        }
    }
}
