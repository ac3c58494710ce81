//! Transparent decompression. The codec is recognised by the magic bytes at the start of
//! the input, never by the file name, and undone while streaming: memory does not grow
//! with the size of the file. Concatenated streams (as `pigz` or `cat a.gz b.gz` make)
//! are read to the end. Decoding runs on its own thread ([`crate::threaded`]).

use std::fmt;
use std::io::{self, BufRead, Cursor, Read};

use crate::threaded::ThreadedRead;

/// How the input was compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Bzip2,
    Xz,
    Zstd,
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Compression::None => "uncompressed",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        })
    }
}

/// The longest magic number we look for (xz's).
const MAGIC_BYTES: usize = 6;

/// The codec whose magic number `head` starts with.
fn sniff(head: &[u8]) -> Compression {
    if head.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if head.starts_with(b"BZh") {
        Compression::Bzip2
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
        Compression::Xz
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Compression::Zstd
    } else {
        Compression::None
    }
}

/// Looks at the first bytes of `input` and returns it with any compression undone.
pub(crate) fn decompress(
    mut input: Box<dyn BufRead + Send>,
) -> io::Result<(Compression, Box<dyn Read + Send>)> {
    let mut head = [0u8; MAGIC_BYTES];
    let mut filled = 0;
    while filled < MAGIC_BYTES {
        match input.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    let compression = sniff(&head[..filled]);
    let whole = Cursor::new(head[..filled].to_vec()).chain(input);
    let out: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(whole),
        Compression::Gzip => {
            ThreadedRead::spawn(Box::new(flate2::bufread::MultiGzDecoder::new(whole)))?
        }
        Compression::Bzip2 => {
            ThreadedRead::spawn(Box::new(bzip2::bufread::MultiBzDecoder::new(whole)))?
        }
        Compression::Xz => {
            ThreadedRead::spawn(Box::new(xz2::bufread::XzDecoder::new_multi_decoder(whole)))?
        }
        Compression::Zstd => {
            ThreadedRead::spawn(Box::new(zstd::stream::read::Decoder::with_buffer(whole)?))?
        }
    };
    Ok((compression, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers_are_recognised() {
        assert_eq!(sniff(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(sniff(b"BZh91AY"), Compression::Bzip2);
        assert_eq!(sniff(&[0xfd, b'7', b'z', b'X', b'Z', 0]), Compression::Xz);
        assert_eq!(sniff(&[0x28, 0xb5, 0x2f, 0xfd, 0]), Compression::Zstd);
        assert_eq!(sniff(b"1,2,3"), Compression::None);
        assert_eq!(
            sniff(&[0x1f]),
            Compression::None,
            "a lone first byte is not gzip"
        );
        assert_eq!(sniff(b""), Compression::None);
    }
}
