//! Division by a divisor fixed for the run (pages per block, blocks per plane, planes per
//! channel). Every page operation divides by them to find its block, plane and channel;
//! NAND geometries are nearly always powers of two, and then a shift does the work of a
//! hardware division at a fraction of its latency.

/// A nonzero divisor, with its shift when it is a power of two.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Divisor {
    d: u32,
    /// `log2(d)` when `d` is a power of two.
    shift: Option<u32>,
}

impl Divisor {
    /// `d` is raised to 1 if zero (validated geometry never has zero).
    pub(crate) fn new(d: u32) -> Divisor {
        let d = d.max(1);
        Divisor {
            d,
            shift: d.is_power_of_two().then(|| d.trailing_zeros()),
        }
    }

    /// `n / d`.
    pub(crate) fn div(self, n: u32) -> u32 {
        match self.shift {
            Some(s) => n >> s,
            None => n / self.d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Divisor;

    #[test]
    fn divides_like_the_operator_for_powers_of_two_and_others() {
        for d in [1u32, 2, 3, 7, 64, 100, 256, 2048, 1 << 31, u32::MAX] {
            let div = Divisor::new(d);
            for n in [
                0u32,
                1,
                d - 1,
                d,
                d.wrapping_add(1),
                12345,
                u32::MAX - 1,
                u32::MAX,
            ] {
                assert_eq!(div.div(n), n / d, "{n} / {d}");
            }
        }
        assert_eq!(Divisor::new(0).div(5), 5);
    }
}
