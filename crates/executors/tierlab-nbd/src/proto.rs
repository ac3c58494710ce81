//! Protocol constants, named as in the NBD specification (`doc/proto.md`).
//!
//! Kept in one place so the codec, the handshake and the transmission loop
//! cannot disagree about a number.

/// `NBDMAGIC`, the first eight bytes the server sends.
pub const NBDMAGIC: u64 = 0x4e42_444d_4147_4943;
/// `IHAVEOPT`: second server magic, and the magic of every client option.
pub const IHAVEOPT: u64 = 0x4948_4156_454f_5054;
/// Magic of every option reply.
pub const OPTION_REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
/// Magic of a transmission request.
pub const REQUEST_MAGIC: u32 = 0x2560_9513;
/// Magic of a simple reply.
pub const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;
/// Magic of a structured reply chunk.
pub const STRUCTURED_REPLY_MAGIC: u32 = 0x668e_33ef;

/// Handshake flag: the server speaks fixed newstyle.
pub const FLAG_FIXED_NEWSTYLE: u16 = 1 << 0;
/// Handshake flag: the server can omit the 124 zero bytes after `EXPORT_NAME`.
pub const FLAG_NO_ZEROES: u16 = 1 << 1;
/// Client flag: the client speaks fixed newstyle.
pub const FLAG_C_FIXED_NEWSTYLE: u32 = 1 << 0;
/// Client flag: the client wants no 124 zero bytes after `EXPORT_NAME`.
pub const FLAG_C_NO_ZEROES: u32 = 1 << 1;

/// Transmission flags (16 bits, sent with the export size).
pub const FLAG_HAS_FLAGS: u16 = 1 << 0;
pub const FLAG_READ_ONLY: u16 = 1 << 1;
pub const FLAG_SEND_FLUSH: u16 = 1 << 2;
pub const FLAG_SEND_FUA: u16 = 1 << 3;
pub const FLAG_SEND_TRIM: u16 = 1 << 5;
pub const FLAG_SEND_WRITE_ZEROES: u16 = 1 << 6;
pub const FLAG_SEND_DF: u16 = 1 << 7;
pub const FLAG_CAN_MULTI_CONN: u16 = 1 << 8;
pub const FLAG_SEND_FAST_ZERO: u16 = 1 << 11;

/// Option types.
pub const OPT_EXPORT_NAME: u32 = 1;
pub const OPT_ABORT: u32 = 2;
pub const OPT_LIST: u32 = 3;
pub const OPT_STARTTLS: u32 = 5;
pub const OPT_INFO: u32 = 6;
pub const OPT_GO: u32 = 7;
pub const OPT_STRUCTURED_REPLY: u32 = 8;
pub const OPT_LIST_META_CONTEXT: u32 = 9;
pub const OPT_SET_META_CONTEXT: u32 = 10;

/// Option reply types; errors have bit 31 set.
pub const REP_ACK: u32 = 1;
pub const REP_SERVER: u32 = 2;
pub const REP_INFO: u32 = 3;
pub const REP_META_CONTEXT: u32 = 4;
pub const REP_ERR_UNSUP: u32 = (1 << 31) + 1;
pub const REP_ERR_POLICY: u32 = (1 << 31) + 2;
pub const REP_ERR_INVALID: u32 = (1 << 31) + 3;
pub const REP_ERR_UNKNOWN: u32 = (1 << 31) + 6;
pub const REP_ERR_TOO_BIG: u32 = (1 << 31) + 9;

/// Information types inside `REP_INFO`.
pub const INFO_EXPORT: u16 = 0;
pub const INFO_NAME: u16 = 1;
pub const INFO_DESCRIPTION: u16 = 2;
pub const INFO_BLOCK_SIZE: u16 = 3;

/// Commands.
pub const CMD_READ: u16 = 0;
pub const CMD_WRITE: u16 = 1;
pub const CMD_DISC: u16 = 2;
pub const CMD_FLUSH: u16 = 3;
pub const CMD_TRIM: u16 = 4;
pub const CMD_WRITE_ZEROES: u16 = 6;
pub const CMD_BLOCK_STATUS: u16 = 7;

/// Command flags.
pub const CMD_FLAG_FUA: u16 = 1 << 0;
pub const CMD_FLAG_NO_HOLE: u16 = 1 << 1;
pub const CMD_FLAG_DF: u16 = 1 << 2;
pub const CMD_FLAG_REQ_ONE: u16 = 1 << 3;
pub const CMD_FLAG_FAST_ZERO: u16 = 1 << 4;

/// Structured reply flag: last chunk of a reply.
pub const REPLY_FLAG_DONE: u16 = 1 << 0;
/// Structured reply chunk types.
pub const REPLY_TYPE_NONE: u16 = 0;
pub const REPLY_TYPE_OFFSET_DATA: u16 = 1;
pub const REPLY_TYPE_BLOCK_STATUS: u16 = 5;
pub const REPLY_TYPE_ERROR: u16 = (1 << 15) + 1;

/// Error values of the transmission phase.
pub const EPERM: u32 = 1;
pub const EIO: u32 = 5;
pub const ENOMEM: u32 = 12;
pub const EINVAL: u32 = 22;
pub const ENOSPC: u32 = 28;
pub const EOVERFLOW: u32 = 75;
pub const ENOTSUP: u32 = 95;
pub const ESHUTDOWN: u32 = 108;

/// Longest string (export name, description, message) the spec allows.
pub const MAX_STRING_BYTES: usize = 4096;
/// Name of the one metadata context this server offers.
pub const BASE_ALLOCATION: &str = "base:allocation";
