//! Decompressing on a second thread, so that decoding and parsing overlap: on a
//! multi-core machine a compressed trace then reads nearly as fast as the slower of the
//! two alone. The order of bytes is kept, so the output is identical to decoding inline.
//!
//! Memory is bounded: at most [`CHUNKS_IN_FLIGHT`] chunks of [`CHUNK_BYTES`] wait in the
//! queue, plus the one being read and the one being filled (6 MiB in all); buffers are
//! handed back to the decoder thread for reuse.

use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread;

/// Bytes decoded per chunk.
const CHUNK_BYTES: usize = 1 << 20;
/// Chunks decoded ahead of the reader at most.
const CHUNKS_IN_FLIGHT: usize = 4;

/// What the decoder thread sends.
enum Msg {
    /// A chunk of decoded bytes (never empty).
    Data(Vec<u8>),
    /// The decoder reached the end of its input.
    End,
    /// The decoder failed; nothing follows.
    Failed(io::Error),
}

/// A [`Read`] whose bytes are produced by a decoder running on its own thread.
pub(crate) struct ThreadedRead {
    chunks: Receiver<Msg>,
    spare: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
    finished: bool,
}

/// Fills `buf` from `decoder` as far as it goes (short only at the end of the input).
fn fill_chunk(decoder: &mut dyn Read, buf: &mut Vec<u8>) -> io::Result<()> {
    buf.clear();
    let mut limited = decoder.take(CHUNK_BYTES as u64);
    limited.read_to_end(buf)?;
    Ok(())
}

impl ThreadedRead {
    /// Starts decoding `decoder` on a new thread.
    pub fn spawn(mut decoder: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
        let (chunk_tx, chunk_rx) = sync_channel::<Msg>(CHUNKS_IN_FLIGHT);
        let (spare_tx, spare_rx) = sync_channel::<Vec<u8>>(CHUNKS_IN_FLIGHT + 1);
        thread::Builder::new()
            .name("trace-decompress".into())
            .spawn(move || loop {
                let mut buf = spare_rx.try_recv().unwrap_or_default();
                let msg = match fill_chunk(&mut decoder, &mut buf) {
                    Ok(()) if buf.is_empty() => Msg::End,
                    Ok(()) => Msg::Data(buf),
                    Err(e) => Msg::Failed(e),
                };
                let last = !matches!(msg, Msg::Data(_));
                // A send error means the reader was dropped: stop decoding.
                if chunk_tx.send(msg).is_err() || last {
                    return;
                }
            })?;
        Ok(Box::new(ThreadedRead {
            chunks: chunk_rx,
            spare: spare_tx,
            current: Vec::new(),
            pos: 0,
            finished: false,
        }))
    }
}

impl Read for ThreadedRead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.current.len() {
            if self.finished {
                return Ok(0);
            }
            match self.chunks.recv() {
                Ok(Msg::Data(chunk)) => {
                    let used = std::mem::replace(&mut self.current, chunk);
                    self.pos = 0;
                    // Hand the old buffer back for reuse; if the queue is full, drop it.
                    let _ = self.spare.try_send(used);
                }
                Ok(Msg::End) => self.finished = true,
                Ok(Msg::Failed(e)) => {
                    self.finished = true;
                    return Err(e);
                }
                Err(_) => {
                    self.finished = true;
                    return Err(io::Error::other(
                        "the decompression thread stopped unexpectedly",
                    ));
                }
            }
        }
        let n = out.len().min(self.current.len() - self.pos);
        out[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Yields `len` bytes of a pattern, then an error if `fail` is set.
    struct Source {
        left: usize,
        fail: bool,
        next: u8,
    }

    impl Read for Source {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.left == 0 {
                return if self.fail {
                    Err(io::Error::other("corrupt"))
                } else {
                    Ok(0)
                };
            }
            let n = out.len().min(self.left).min(7777);
            for b in &mut out[..n] {
                *b = self.next;
                self.next = self.next.wrapping_add(1);
            }
            self.left -= n;
            Ok(n)
        }
    }

    #[test]
    fn bytes_arrive_complete_and_in_order() {
        let len = 3 * CHUNK_BYTES + 12_345;
        let mut r = ThreadedRead::spawn(Box::new(Source {
            left: len,
            fail: false,
            next: 0,
        }))
        .unwrap();
        let mut all = Vec::new();
        r.read_to_end(&mut all).unwrap();
        assert_eq!(all.len(), len);
        assert!(all.iter().enumerate().all(|(i, &b)| b == i as u8));
    }

    #[test]
    fn decoder_errors_reach_the_reader() {
        let mut r = ThreadedRead::spawn(Box::new(Source {
            left: 10,
            fail: true,
            next: 0,
        }))
        .unwrap();
        let mut all = Vec::new();
        let err = r.read_to_end(&mut all).unwrap_err();
        assert_eq!(err.to_string(), "corrupt");
    }

    #[test]
    fn dropping_the_reader_stops_the_thread() {
        let mut r = ThreadedRead::spawn(Box::new(Source {
            left: usize::MAX,
            fail: false,
            next: 0,
        }))
        .unwrap();
        let mut buf = [0u8; 10];
        r.read_exact(&mut buf).unwrap();
        drop(r); // the thread's next send fails and it returns; the test must not hang
    }
}
