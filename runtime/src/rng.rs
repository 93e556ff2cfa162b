//! A small seeded random number generator, written here so that a run is reproducible bit
//! for bit from its seed: xoshiro256** (Blackman and Vigna), seeded through SplitMix64.
//!
//! Each part of the simulation draws from its own stream ([`Rng::stream`]), so that adding
//! a message or a sensor does not change how the guests walk. Uniform, triangular and
//! direction draws use only IEEE-exact operations (+, -, *, /, sqrt) and are identical on
//! every platform; exponential and normal draws call `ln`, whose last bit may differ
//! between C libraries.

/// SplitMix64: turns one seed into a well-mixed sequence; used to fill xoshiro's state and to
/// derive stream seeds.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// xoshiro256**.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

/// A stable 64-bit hash of a name (FNV-1a), for naming streams.
pub fn name_hash(name: &str) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

impl Rng {
    pub fn seed(seed: u64) -> Rng {
        let mut sm = SplitMix64(seed);
        let s = [sm.next_u64(), sm.next_u64(), sm.next_u64(), sm.next_u64()];
        // SplitMix64 never yields four zeros in a row, but the all-zero state is the one
        // state xoshiro cannot leave, so guard it anyway.
        if s == [0; 4] {
            return Rng { s: [1, 0, 0, 0] };
        }
        Rng { s }
    }

    /// An independent stream of one seed: the world's seed and a part of the simulation.
    pub fn stream(seed: u64, stream: u64) -> Rng {
        let mut sm = SplitMix64(seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        Rng::seed(sm.next_u64())
    }

    /// A stream named by text (`"guests"`, `"sensor:Navigator.light"`).
    pub fn named(seed: u64, name: &str) -> Rng {
        Rng::stream(seed, name_hash(name))
    }

    /// A stream fixed by a key (a named stream's seed and the parts that identify one draw)
    /// rather than by how much was drawn before: the same key gives the same numbers, so two
    /// runs that differ in one setting draw alike for the same event (common random numbers).
    pub fn keyed(seed: u64, key: &[u64]) -> Rng {
        let mut h = seed;
        for k in key {
            h = SplitMix64(h ^ k).next_u64();
        }
        Rng::seed(h)
    }

    /// The raw state, for tests against published vectors.
    pub fn from_state(s: [u64; 4]) -> Rng {
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1), 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in 0..n, without modulo bias; 0 when n is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }

    /// True with probability p.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Triangular(min, mode, max) by the inverse distribution function. Degenerate bounds
    /// (min == max) give min; bounds out of order are sorted first.
    pub fn triangular(&mut self, min: f64, mode: f64, max: f64) -> f64 {
        let mut v = [min, mode, max];
        v.sort_by(f64::total_cmp);
        let (a, c, b) = (v[0], v[1], v[2]);
        if b - a <= 0.0 {
            return a;
        }
        let u = self.unit();
        let f = (c - a) / (b - a);
        let x = if u < f {
            a + (u * (b - a) * (c - a)).sqrt()
        } else {
            b - ((1.0 - u) * (b - a) * (b - c)).sqrt()
        };
        x.clamp(a, b)
    }

    /// Exponential with the given mean (1 / rate); 0 for a mean that is not positive.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        if mean <= 0.0 || !mean.is_finite() {
            return 0.0;
        }
        // 1 - u is in (0, 1], so ln never sees 0.
        -libm::log(1.0 - self.unit()) * mean
    }

    /// Normal by Marsaglia's polar method (no trigonometry).
    pub fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        loop {
            let x = self.uniform(-1.0, 1.0);
            let y = self.uniform(-1.0, 1.0);
            let s = x * x + y * y;
            if s > 0.0 && s < 1.0 {
                return mean + sd * x * (-2.0 * libm::log(s) / s).sqrt();
            }
        }
    }

    /// A direction uniform over the circle, as a unit vector, by rejection from the square
    /// (no trigonometry, so it is the same on every platform).
    pub fn direction(&mut self) -> (f64, f64) {
        loop {
            let x = self.uniform(-1.0, 1.0);
            let y = self.uniform(-1.0, 1.0);
            let s = x * x + y * y;
            if s > 1e-12 && s <= 1.0 {
                let r = s.sqrt();
                return (x / r, y / r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference() {
        let mut sm = SplitMix64(0);
        assert_eq!(sm.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(sm.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn xoshiro_matches_the_reference() {
        let mut r = Rng::from_state([1, 2, 3, 4]);
        assert_eq!(r.next_u64(), 11520);
        assert_eq!(r.next_u64(), 0);
        assert_eq!(r.next_u64(), 1_509_978_240);
        assert_eq!(r.next_u64(), 1_215_971_899_390_074_240);
    }

    #[test]
    fn same_seed_same_sequence_different_streams_differ() {
        let a: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::seed(7);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::seed(7);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(Rng::stream(7, 1).next_u64(), Rng::stream(7, 2).next_u64());
        assert_ne!(
            Rng::named(7, "guests").next_u64(),
            Rng::named(7, "events").next_u64()
        );
    }

    #[test]
    fn triangular_stays_in_bounds_and_centres_on_its_mean() {
        let mut r = Rng::seed(1);
        let (a, c, b) = (0.5, 1.5, 3.0);
        let n = 20_000;
        let mut sum = 0.0;
        for _ in 0..n {
            let x = r.triangular(a, c, b);
            assert!((a..=b).contains(&x), "{x}");
            sum += x;
        }
        let mean = sum / n as f64;
        assert!((mean - (a + b + c) / 3.0).abs() < 0.03, "mean {mean}");
        assert_eq!(r.triangular(2.0, 2.0, 2.0), 2.0);
    }

    #[test]
    fn uniform_below_exponential_normal_direction() {
        let mut r = Rng::seed(3);
        for _ in 0..1000 {
            let u = r.uniform(-2.0, 5.0);
            assert!((-2.0..5.0).contains(&u));
            assert!(r.below(7) < 7);
            assert!(r.exponential(4.0) >= 0.0);
            let (x, y) = r.direction();
            assert!(((x * x + y * y) - 1.0).abs() < 1e-12);
        }
        assert_eq!(r.below(0), 0);
        let n = 20_000;
        let mean = (0..n).map(|_| r.exponential(4.0)).sum::<f64>() / n as f64;
        assert!((mean - 4.0).abs() < 0.15, "exponential mean {mean}");
        let mean = (0..n).map(|_| r.normal(10.0, 2.0)).sum::<f64>() / n as f64;
        assert!((mean - 10.0).abs() < 0.1, "normal mean {mean}");
        assert!(!r.chance(0.0));
        assert!(r.chance(1.0));
    }
}
