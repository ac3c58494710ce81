//! Checks a decoded request against the session and turns it into an
//! operation, or into the NBD error the spec asks for.
//!
//! Pure: no I/O, so every error rule is unit-tested directly.

use std::io;

use crate::codec::Request;
use crate::handshake::{ExportInfo, Negotiated};
use crate::proto::*;

/// A request that passed every check and can be run against the export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Read,
    Write { fua: bool },
    Flush,
    Trim { fua: bool },
    WriteZeroes { fua: bool, may_trim: bool },
    BlockStatus,
}

/// Command flags each command accepts (FUA is accepted everywhere, as the spec asks).
fn allowed_flags(command: u16, negotiated: &Negotiated) -> u16 {
    CMD_FLAG_FUA
        | match command {
            CMD_READ if negotiated.structured => CMD_FLAG_DF,
            CMD_WRITE_ZEROES => CMD_FLAG_NO_HOLE | CMD_FLAG_FAST_ZERO,
            CMD_BLOCK_STATUS => CMD_FLAG_REQ_ONE,
            _ => 0,
        }
}

/// Validates `req` (any command but `DISC`) for this session.
pub(crate) fn classify(
    req: &Request,
    info: &ExportInfo,
    negotiated: &Negotiated,
) -> Result<Op, u32> {
    let writes = matches!(req.command, CMD_WRITE | CMD_TRIM | CMD_WRITE_ZEROES);
    let known = writes || matches!(req.command, CMD_READ | CMD_FLUSH | CMD_BLOCK_STATUS);
    if !known || req.flags & !allowed_flags(req.command, negotiated) != 0 {
        return Err(EINVAL);
    }
    if writes && info.read_only {
        return Err(EPERM);
    }
    if req.length > info.max_payload {
        match req.command {
            CMD_READ if negotiated.structured => return Err(EOVERFLOW),
            CMD_READ | CMD_WRITE => return Err(EINVAL),
            _ => {} // payload-free commands may cover more than the maximum payload
        }
    }
    let in_bounds = req
        .offset
        .checked_add(u64::from(req.length))
        .is_some_and(|end| end <= info.size_bytes);
    if !in_bounds && req.command != CMD_FLUSH {
        return Err(match req.command {
            CMD_WRITE | CMD_WRITE_ZEROES => ENOSPC,
            _ => EINVAL,
        });
    }
    let fua = req.flags & CMD_FLAG_FUA != 0;
    Ok(match req.command {
        CMD_READ => Op::Read,
        CMD_WRITE => Op::Write { fua },
        CMD_FLUSH => Op::Flush,
        CMD_TRIM => Op::Trim { fua },
        CMD_WRITE_ZEROES => {
            if req.flags & CMD_FLAG_FAST_ZERO != 0 {
                // Zeroing speed depends on the export and file system; never promise it.
                return Err(ENOTSUP);
            }
            Op::WriteZeroes {
                fua,
                may_trim: req.flags & CMD_FLAG_NO_HOLE == 0,
            }
        }
        _ => {
            if !negotiated.base_allocation || req.length == 0 {
                return Err(EINVAL);
            }
            Op::BlockStatus
        }
    })
}

/// Maps an export's I/O error to the nearest NBD error value.
pub(crate) fn errno_of(e: &io::Error) -> u32 {
    if let Some(code) = e.raw_os_error() {
        return match code {
            libc::EPERM | libc::EROFS | libc::EACCES => EPERM,
            libc::ENOSPC | libc::EDQUOT | libc::EFBIG => ENOSPC,
            libc::ENOMEM => ENOMEM,
            libc::EINVAL => EINVAL,
            libc::EOVERFLOW => EOVERFLOW,
            libc::ENOTSUP => ENOTSUP,
            libc::ESHUTDOWN => ESHUTDOWN,
            _ => EIO,
        };
    }
    match e.kind() {
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => EPERM,
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded | io::ErrorKind::FileTooLarge => {
            ENOSPC
        }
        io::ErrorKind::OutOfMemory => ENOMEM,
        io::ErrorKind::InvalidInput => EINVAL,
        io::ErrorKind::Unsupported => ENOTSUP,
        _ => EIO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(read_only: bool) -> ExportInfo {
        ExportInfo {
            name: String::new(),
            description: String::new(),
            size_bytes: 1 << 20,
            read_only,
            multi_conn: true,
            max_payload: 65536,
        }
    }

    fn req(command: u16, flags: u16, offset: u64, length: u32) -> Request {
        Request {
            flags,
            command,
            cookie: 9,
            offset,
            length,
        }
    }

    const SIMPLE: Negotiated = Negotiated {
        structured: false,
        base_allocation: false,
    };
    const FULL: Negotiated = Negotiated {
        structured: true,
        base_allocation: true,
    };

    #[test]
    fn error_codes_follow_the_spec() {
        let rw = info(false);
        let end = 1u64 << 20;
        assert_eq!(
            classify(&req(CMD_READ, 0, 0, 4096), &rw, &SIMPLE),
            Ok(Op::Read)
        );
        assert_eq!(classify(&req(99, 0, 0, 0), &rw, &SIMPLE), Err(EINVAL));
        assert_eq!(
            classify(&req(CMD_READ, 1 << 9, 0, 1), &rw, &SIMPLE),
            Err(EINVAL)
        );
        assert_eq!(
            classify(&req(CMD_READ, CMD_FLAG_DF, 0, 1), &rw, &SIMPLE),
            Err(EINVAL)
        );
        assert_eq!(
            classify(&req(CMD_READ, CMD_FLAG_DF, 0, 1), &rw, &FULL),
            Ok(Op::Read)
        );
        assert_eq!(
            classify(&req(CMD_READ, 0, end - 1, 2), &rw, &SIMPLE),
            Err(EINVAL)
        );
        assert_eq!(
            classify(&req(CMD_READ, 0, u64::MAX, 2), &rw, &SIMPLE),
            Err(EINVAL)
        );
        assert_eq!(
            classify(&req(CMD_TRIM, 0, end, 1), &rw, &SIMPLE),
            Err(EINVAL)
        );
        assert_eq!(
            classify(&req(CMD_WRITE, 0, end - 1, 2), &rw, &SIMPLE),
            Err(ENOSPC)
        );
        assert_eq!(
            classify(&req(CMD_WRITE_ZEROES, 0, end, 1), &rw, &SIMPLE),
            Err(ENOSPC)
        );
        assert_eq!(
            classify(&req(CMD_READ, 0, 0, 65537), &rw, &SIMPLE),
            Err(EINVAL)
        );
        assert_eq!(
            classify(&req(CMD_READ, 0, 0, 65537), &rw, &FULL),
            Err(EOVERFLOW)
        );
        assert_eq!(
            classify(&req(CMD_WRITE, 0, 0, 65537), &rw, &SIMPLE),
            Err(EINVAL)
        );
        assert_eq!(
            classify(
                &req(CMD_WRITE_ZEROES, CMD_FLAG_NO_HOLE, 0, 1 << 20),
                &rw,
                &SIMPLE
            ),
            Ok(Op::WriteZeroes {
                fua: false,
                may_trim: false
            })
        );
        assert_eq!(
            classify(
                &req(CMD_WRITE_ZEROES, CMD_FLAG_FAST_ZERO, 0, 1),
                &rw,
                &SIMPLE
            ),
            Err(ENOTSUP)
        );
        assert_eq!(
            classify(&req(CMD_FLUSH, 0, 77, 5), &rw, &SIMPLE),
            Ok(Op::Flush)
        );
        assert_eq!(
            classify(&req(CMD_BLOCK_STATUS, 0, 0, 512), &rw, &SIMPLE),
            Err(EINVAL)
        );
        assert_eq!(
            classify(&req(CMD_BLOCK_STATUS, CMD_FLAG_REQ_ONE, 0, 512), &rw, &FULL),
            Ok(Op::BlockStatus)
        );
        assert_eq!(
            classify(&req(CMD_WRITE, CMD_FLAG_FUA, 0, 512), &rw, &SIMPLE),
            Ok(Op::Write { fua: true })
        );
    }

    #[test]
    fn read_only_refuses_every_write() {
        let ro = info(true);
        for cmd in [CMD_WRITE, CMD_TRIM, CMD_WRITE_ZEROES] {
            assert_eq!(classify(&req(cmd, 0, 0, 512), &ro, &SIMPLE), Err(EPERM));
        }
        assert_eq!(
            classify(&req(CMD_READ, 0, 0, 512), &ro, &SIMPLE),
            Ok(Op::Read)
        );
    }

    #[test]
    fn io_errors_map_to_nbd_values() {
        assert_eq!(
            errno_of(&io::Error::from_raw_os_error(libc::EDQUOT)),
            ENOSPC
        );
        assert_eq!(errno_of(&io::Error::from_raw_os_error(libc::EROFS)), EPERM);
        assert_eq!(errno_of(&io::Error::from_raw_os_error(libc::EBADF)), EIO);
        assert_eq!(
            errno_of(&io::Error::from(io::ErrorKind::UnexpectedEof)),
            EIO
        );
        assert_eq!(
            errno_of(&io::Error::from(io::ErrorKind::InvalidInput)),
            EINVAL
        );
    }
}
