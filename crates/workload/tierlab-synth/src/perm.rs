//! Permutations of `0..n` in constant memory: `i -> (a·i + b) mod n` with gcd(a, n) = 1.
//! A footprint of millions of records is laid out and visited without a shuffled vector.

use rand::Rng;

/// A bijection of `0..n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Affine {
    n: u64,
    a: u64,
    b: u64,
}

fn gcd(mut x: u64, mut y: u64) -> u64 {
    while y != 0 {
        (x, y) = (y, x % y);
    }
    x
}

/// The inverse of `a` modulo `n` (gcd(a, n) = 1, n >= 1).
#[cfg(test)]
fn inverse_mod(a: u64, n: u64) -> u64 {
    let (mut r0, mut r1) = (i128::from(n), i128::from(a % n));
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    t0.rem_euclid(i128::from(n)) as u64
}

impl Affine {
    /// A random permutation of `0..n` that sends `index` to `image` (both below `n`;
    /// ignored when `n` is 0).
    pub(crate) fn random(n: u64, rng: &mut impl Rng, index: u64, image: u64) -> Affine {
        let mut a = 1;
        if n > 2 {
            for _ in 0..64 {
                let c = rng.gen_range(1..n);
                if gcd(c, n) == 1 {
                    a = c;
                    break;
                }
            }
        }
        let b = if n == 0 {
            0
        } else {
            let ai = (u128::from(a) * u128::from(index % n) % u128::from(n)) as u64;
            (image % n + n - ai) % n
        };
        Affine { n, a, b }
    }

    pub(crate) fn apply(&self, i: u64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        ((u128::from(self.a) * u128::from(i % self.n) + u128::from(self.b)) % u128::from(self.n))
            as u64
    }

    /// The permutation undoing this one.
    #[cfg(test)]
    pub(crate) fn inverse(&self) -> Affine {
        if self.n <= 1 {
            return *self;
        }
        let a = inverse_mod(self.a, self.n);
        let ab = (u128::from(a) * u128::from(self.b) % u128::from(self.n)) as u64;
        Affine {
            n: self.n,
            a,
            b: (self.n - ab) % self.n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn is_a_bijection_with_the_asked_fixed_point() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for n in [1u64, 2, 3, 10, 97, 1000, 4096] {
            let p = Affine::random(n, &mut rng, n - 1, n - 1);
            assert_eq!(p.apply(n - 1), n - 1);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let j = p.apply(i) as usize;
                assert!(!seen[j], "n = {n}: {j} twice");
                seen[j] = true;
                assert_eq!(p.inverse().apply(j as u64), i);
            }
        }
    }

    #[test]
    fn huge_footprints_cost_nothing() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let n = 1u64 << 40;
        let p = Affine::random(n, &mut rng, 0, 5);
        assert_eq!(p.apply(0), 5);
        let q = p.inverse();
        for i in [1u64, 12345, n - 1] {
            assert_eq!(q.apply(p.apply(i)), i);
        }
        assert_eq!(inverse_mod(3, 7), 5);
    }
}
