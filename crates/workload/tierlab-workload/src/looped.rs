//! A trace played pass after pass, for runs that go on until the measurement layer has
//! what it needs.

use tierlab_types::IoRequest;

/// Requests of a trace played pass after pass, each pass's times shifted by the length of
/// one pass (its span plus one mean gap between arrivals, so passes join without a pause
/// or a burst). `reopen` gives each next pass; the stream ends at the first pass that
/// yields nothing or cannot be opened.
pub struct Looped<I, F> {
    reopen: F,
    reader: Option<I>,
    pass_ns: u64,
    offset_ns: u64,
    yielded_in_pass: u64,
}

impl<I, F> Looped<I, F> {
    /// `first` is the first pass, already open; `pass_ns` the length of one pass (at least 1).
    pub fn new(first: I, pass_ns: u64, reopen: F) -> Self {
        Looped { reopen, reader: Some(first), pass_ns: pass_ns.max(1), offset_ns: 0, yielded_in_pass: 0 }
    }
}

impl<I, E, F> Iterator for Looped<I, F>
where
    I: Iterator<Item = Result<IoRequest, E>>,
    F: FnMut() -> Option<I>,
{
    type Item = Result<IoRequest, E>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let reader = self.reader.as_mut()?;
            match reader.next() {
                Some(Ok(mut r)) => {
                    self.yielded_in_pass += 1;
                    r.time_ns = r.time_ns.saturating_add(self.offset_ns);
                    return Some(Ok(r));
                }
                Some(Err(e)) => return Some(Err(e)),
                None if self.yielded_in_pass == 0 => {
                    self.reader = None;
                    return None;
                }
                None => {
                    self.yielded_in_pass = 0;
                    self.offset_ns = self.offset_ns.saturating_add(self.pass_ns);
                    self.reader = (self.reopen)();
                }
            }
        }
    }
}

/// The length of one pass of requests arriving from `first_ns` to `last_ns`, `n` of them:
/// their span plus one mean gap. `None` without a span (one request, or all at one
/// instant): such a trace has no rate to repeat it at.
pub fn pass_length_ns(n: u64, first_ns: u64, last_ns: u64) -> Option<u64> {
    let span = last_ns.saturating_sub(first_ns);
    (n > 1 && span > 0).then(|| (span as f64 * n as f64 / (n - 1) as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tierlab_types::Op;

    fn pass() -> std::vec::IntoIter<Result<IoRequest, ()>> {
        let at = |t: u64| Ok(IoRequest { time_ns: t, volume: 0, offset_bytes: t, len_bytes: 512, op: Op::Read });
        vec![at(0), at(10), at(20)].into_iter()
    }

    #[test]
    fn passes_follow_each_other_one_pass_length_apart() {
        let mut passes = 0;
        let looped = Looped::new(pass(), 30, || {
            passes += 1;
            (passes < 3).then(pass)
        });
        let times: Vec<u64> = looped.map(|r| r.unwrap().time_ns).collect();
        assert_eq!(times, [0, 10, 20, 30, 40, 50, 60, 70, 80]);
    }

    #[test]
    fn an_empty_pass_ends_the_stream() {
        let looped = Looped::new(Vec::<Result<IoRequest, ()>>::new().into_iter(), 30, || Some(pass()));
        assert_eq!(looped.count(), 0);
    }

    #[test]
    fn a_pass_is_its_span_plus_one_mean_gap() {
        assert_eq!(pass_length_ns(3, 0, 20), Some(30));
        assert_eq!(pass_length_ns(1, 5, 5), None);
        assert_eq!(pass_length_ns(4, 7, 7), None);
    }
}
