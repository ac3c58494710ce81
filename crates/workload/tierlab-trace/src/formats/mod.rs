//! One line parser per trace format. Each turns one line (without its line ending, never
//! blank, never a `#` comment — the reader skips those) into a request, into nothing (a
//! header or other line that carries no request), or into a [`FieldError`].
//!
//! Times come out in nanoseconds on the format's own clock (for example Windows FILETIME
//! or Unix seconds, scaled to ns); the reader rebases them so the trace starts at 0.
//!
//! The binary formats (libCacheSim's) have no lines: [`libcachesim::parse`] reads one
//! fixed-size record at a time, and [`Parser::new`] has no parser for them.

mod alibaba;
mod blkparse;
mod blkreplay;
mod cloudphysics;
mod disksim;
mod fio;
mod fiu;
pub(crate) mod libcachesim;
mod msr;
mod systor;
mod tencent;
mod umass;
mod validate;

use crate::error::FieldError;
use crate::{BlkparseAction, Format};
use tierlab_types::IoRequest;

pub(crate) use blkparse::dev_volume;

/// What a line holds: a request, or nothing to replay (header, preamble, event of
/// another kind).
pub(crate) type ParsedLine = Result<Option<IoRequest>, FieldError>;

/// A format's line parser with whatever state the format needs between lines.
pub(crate) enum Parser {
    Disksim(disksim::Units),
    Cloudphysics,
    Blkreplay(blkreplay::State),
    Fiu,
    Msr,
    TencentCbs,
    UmassSpc,
    Blkparse(BlkparseAction),
    FioIolog(fio::State),
    DisksimValidate(validate::State),
    Systor17,
    AlibabaBlock,
}

impl Parser {
    /// The line parser of a text format; `None` for a binary format.
    pub fn new(format: Format, blkparse_action: BlkparseAction) -> Option<Self> {
        Some(match format {
            Format::Disksim => Parser::Disksim(disksim::Units::NsSectors),
            Format::DisksimMs => Parser::Disksim(disksim::Units::MsSectors),
            Format::SsdReplay => Parser::Disksim(disksim::Units::MsBytes),
            Format::Cloudphysics => Parser::Cloudphysics,
            Format::Blkreplay => Parser::Blkreplay(blkreplay::State::default()),
            Format::Fiu => Parser::Fiu,
            Format::Msr => Parser::Msr,
            Format::TencentCbs => Parser::TencentCbs,
            Format::UmassSpc => Parser::UmassSpc,
            Format::Blkparse => Parser::Blkparse(blkparse_action),
            Format::FioIolog => Parser::FioIolog(fio::State::default()),
            Format::DisksimValidate => Parser::DisksimValidate(validate::State::default()),
            Format::Systor17 => Parser::Systor17,
            Format::AlibabaBlock => Parser::AlibabaBlock,
            Format::OracleGeneral
            | Format::BinaryU32
            | Format::BinaryU64
            | Format::BinaryU32Be
            | Format::BinaryU64Be => return None,
        })
    }

    /// Parses one non-blank, non-comment line.
    #[inline]
    pub fn parse(&mut self, line: &[u8]) -> ParsedLine {
        match self {
            Parser::Disksim(units) => disksim::parse(line, *units),
            Parser::Cloudphysics => cloudphysics::parse(line),
            Parser::Blkreplay(state) => blkreplay::parse(line, state),
            Parser::Fiu => fiu::parse(line),
            Parser::Msr => msr::parse(line),
            Parser::TencentCbs => tencent::parse(line),
            Parser::UmassSpc => umass::parse(line),
            Parser::Blkparse(action) => blkparse::parse(line, *action),
            Parser::FioIolog(state) => fio::parse(line, state),
            Parser::DisksimValidate(state) => validate::parse(line, state),
            Parser::Systor17 => systor::parse(line),
            Parser::AlibabaBlock => alibaba::parse(line),
        }
    }
}
