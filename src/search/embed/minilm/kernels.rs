//! The element-wise steps of the forward pass (GELU, softmax, residual adds), written so the
//! compiler vectorises them, and run through [`vectorized`] so they use AVX2 where the CPU
//! has it. Before this, the softmax alone (a scalar `expf` call per attention score, about
//! 12,700 per token) took a tenth of the embedding time.

use crate::search::simd::{Kernel, vectorized};

/// `target[i] += addend[i]`.
pub(super) fn add_in_place(target: &mut [f32], addend: &[f32]) {
    vectorized(AddInPlace(target, addend))
}

/// GELU on every element.
pub(super) fn gelu_in_place(values: &mut [f32]) {
    vectorized(GeluInPlace(values))
}

/// Softmax of each `len`-wide row of `scores`, in place.
pub(super) fn softmax_rows(scores: &mut [f32], len: usize) {
    vectorized(SoftmaxRows(scores, len))
}

/// LayerNorm of each `gamma.len()`-wide row of `rows`, in place: `(x - mean) / √(var + eps)
/// · gamma + beta`, statistics in f64 (four lanes of eight-wide sums) to stay close to the
/// float64 reference.
pub(super) fn layer_norm_rows(rows: &mut [f32], gamma: &[f32], beta: &[f32], eps: f32) {
    vectorized(LayerNormRows {
        rows,
        gamma,
        beta,
        eps,
    })
}

struct LayerNormRows<'a> {
    rows: &'a mut [f32],
    gamma: &'a [f32],
    beta: &'a [f32],
    eps: f32,
}

impl Kernel for LayerNormRows<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let dim = self.gamma.len();
        for row in self.rows.chunks_exact_mut(dim) {
            let mean = lane_sum(row, f64::from) / dim as f64;
            let variance = lane_sum(row, |x| (f64::from(x) - mean).powi(2)) / dim as f64;
            let inv_std = 1.0 / (variance + f64::from(self.eps)).sqrt();
            let (mean, inv_std) = (mean as f32, inv_std as f32);
            for ((x, &g), &b) in row.iter_mut().zip(self.gamma).zip(self.beta) {
                *x = (*x - mean) * inv_std * g + b;
            }
        }
    }
}

/// `Σ f(x)` over `values` in eight independent f64 lanes.
#[inline(always)]
fn lane_sum(values: &[f32], f: impl Fn(f32) -> f64) -> f64 {
    let mut sums = [0.0f64; LANES];
    let mut chunks = values.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (s, &x) in sums.iter_mut().zip(chunk) {
            *s += f(x);
        }
    }
    chunks.remainder().iter().map(|&x| f(x)).sum::<f64>() + sums.iter().sum::<f64>()
}

struct AddInPlace<'a>(&'a mut [f32], &'a [f32]);

impl Kernel for AddInPlace<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        for (t, &a) in self.0.iter_mut().zip(self.1) {
            *t += a;
        }
    }
}

struct GeluInPlace<'a>(&'a mut [f32]);

impl Kernel for GeluInPlace<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        for x in self.0.iter_mut() {
            *x = gelu(*x);
        }
    }
}

struct SoftmaxRows<'a>(&'a mut [f32], usize);

impl Kernel for SoftmaxRows<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        for row in self.0.chunks_exact_mut(self.1) {
            softmax_row(row);
        }
    }
}

const LANES: usize = 8;

/// Max and sum kept in eight independent lanes, so they vectorise (one running value is a
/// dependency chain the compiler must keep in order).
#[inline(always)]
fn softmax_row(row: &mut [f32]) {
    let mut maxima = [f32::NEG_INFINITY; LANES];
    let mut chunks = row.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (m, &x) in maxima.iter_mut().zip(chunk) {
            *m = if x > *m { x } else { *m };
        }
    }
    let max = chunks
        .remainder()
        .iter()
        .chain(&maxima)
        .fold(f32::NEG_INFINITY, |m, &x| if x > m { x } else { m });
    for x in row.iter_mut() {
        *x = exp(*x - max);
    }
    let mut sums = [0.0f32; LANES];
    let mut chunks = row.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (s, &x) in sums.iter_mut().zip(chunk) {
            *s += x;
        }
    }
    let sum: f32 = chunks.remainder().iter().sum::<f32>() + sums.iter().sum::<f32>();
    let inv_sum = 1.0 / sum;
    for x in row.iter_mut() {
        *x *= inv_sum;
    }
}

/// `eˣ` within 2 ulp for x ≤ 88 (larger x saturates at e⁸⁸), 0 below -87.3 (where f32
/// denormals start): Cephes' `expf`, range reduction `x = n·ln2 + r` with `|r| ≤ ln2/2`, a
/// degree-6 polynomial for `eʳ`, and `2ⁿ` built in the exponent bits. Branch-free, so a loop
/// of it vectorises; std's `exp` is a call per element.
#[inline(always)]
fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Adding and subtracting 1.5·2²³ rounds to the nearest integer (for |v| < 2²²).
    const ROUND: f32 = 12_582_912.0;
    let clamped = x.clamp(-87.0, 88.0);
    let n = (clamped * LOG2E + ROUND) - ROUND;
    let r = clamped - n * LN2_HI - n * LN2_LO;
    let p = 1.987_569_1e-4;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_5e-1;
    let p = p * r + 0.5;
    let er = p * r * r + r + 1.0;
    // n is in [-126, 127] after the clamp, so the biased exponent is in [1, 254].
    let scale = f32::from_bits(((n as i32 + 127) as u32) << 23);
    if x < -87.3 { 0.0 } else { er * scale }
}

/// Exact (erf-based) GELU, as in BERT: `x · Φ(x) = x/2 · (1 + erf(x/√2))`.
#[inline(always)]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// erf to within ~1e-7 absolute: the rational approximation used by Eigen and XLA for f32
/// (odd polynomial over even polynomial on [-4, 4], where f32 erf saturates to ±1).
/// std has no stable `erf`, and this avoids `exp` in the hottest elementwise loop.
#[inline(always)]
fn erf(x: f32) -> f32 {
    const ALPHA: [f32; 7] = [
        -2.726_142_3e-10,
        2.770_681_4e-8,
        -2.101_024e-6,
        -5.692_506_4e-5,
        -7.349_906e-4,
        -2.954_6e-3,
        -1.609_603_3e-2,
    ];
    const BETA: [f32; 5] = [
        -1.456_607_2e-5,
        -2.133_740_6e-4,
        -1.682_827e-3,
        -7.373_329e-3,
        -1.426_474e-2,
    ];
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let numerator = ALPHA.iter().fold(0.0, |acc, &c| acc * x2 + c) * x;
    let denominator = BETA.iter().fold(0.0, |acc, &c| acc * x2 + c);
    numerator / denominator
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_reference_values() {
        // Values from Python's math.erf.
        let reference = [
            (-3.0, -0.999_977_909_503_001_4),
            (-1.0, -0.842_700_792_949_714_9),
            (-0.5, -0.520_499_877_813_046_5),
            (0.0, 0.0),
            (0.1, 0.112_462_916_018_284_9),
            (0.7, 0.677_801_193_837_418_4),
            (1.3, 0.934_007_944_940_652_4),
            (2.5, 0.999_593_047_982_555),
            (10.0, 1.0),
        ];
        for (x, expected) in reference {
            assert!((f64::from(erf(x)) - expected).abs() < 2e-7, "erf({x})");
        }
    }

    #[test]
    fn exp_is_within_two_ulp_of_std() {
        let mut x = -87.0f32;
        while x < 88.0 {
            let (ours, std) = (exp(x), x.exp());
            let ulp = (std.to_bits() as i64 - ours.to_bits() as i64).abs();
            assert!(ulp <= 2, "exp({x}) = {ours}, std {std}, {ulp} ulp");
            x += 0.0137;
        }
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-100.0), 0.0);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
    }

    #[test]
    fn softmax_is_stable_for_large_scores() {
        let mut row = [1000.0, 1000.0, -1000.0];
        softmax_rows(&mut row, 3);
        assert!((row[0] - 0.5).abs() < 1e-6 && (row[1] - 0.5).abs() < 1e-6 && row[2] == 0.0);
    }

    #[test]
    fn softmax_rows_match_the_direct_formula() {
        for len in [1, 7, 8, 9, 33, 176] {
            let mut scores: Vec<f32> = (0..len * 3)
                .map(|i| ((i * 7919) % 101) as f32 / 10.0 - 5.0)
                .collect();
            let expected: Vec<f64> = scores
                .chunks(len)
                .flat_map(|row| {
                    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    let sum: f64 = row.iter().map(|&x| f64::from(x - max).exp()).sum();
                    row.iter()
                        .map(move |&x| f64::from(x - max).exp() / sum)
                        .collect::<Vec<_>>()
                })
                .collect();
            softmax_rows(&mut scores, len);
            for (got, want) in scores.iter().zip(&expected) {
                assert!(
                    (f64::from(*got) - want).abs() < 1e-6,
                    "{len}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn layer_norm_matches_the_f64_formula() {
        let dim = 19;
        let gamma: Vec<f32> = (0..dim).map(|i| 1.0 + i as f32 / 10.0).collect();
        let beta: Vec<f32> = (0..dim).map(|i| i as f32 / 100.0 - 0.1).collect();
        let mut rows: Vec<f32> = (0..dim * 3)
            .map(|i| ((i * 7919) % 97) as f32 / 9.0 - 5.0)
            .collect();
        let expected: Vec<f64> = rows
            .chunks(dim)
            .flat_map(|row| {
                let mean = row.iter().map(|&x| f64::from(x)).sum::<f64>() / dim as f64;
                let var = row
                    .iter()
                    .map(|&x| (f64::from(x) - mean).powi(2))
                    .sum::<f64>()
                    / dim as f64;
                let (gamma, beta) = (&gamma, &beta);
                row.iter().enumerate().map(move |(i, &x)| {
                    (f64::from(x) - mean) / (var + 1e-12).sqrt() * f64::from(gamma[i])
                        + f64::from(beta[i])
                })
            })
            .collect();
        layer_norm_rows(&mut rows, &gamma, &beta, 1e-12);
        for (got, want) in rows.iter().zip(&expected) {
            assert!((f64::from(*got) - want).abs() < 1e-5, "{got} vs {want}");
        }
    }

    #[test]
    fn gelu_and_add_cover_every_element() {
        let mut values: Vec<f32> = (0..37).map(|i| i as f32 / 4.0 - 4.5).collect();
        let expected: Vec<f32> = values.iter().map(|&x| gelu(x)).collect();
        gelu_in_place(&mut values);
        assert_eq!(values, expected);
        let mut target = vec![1.0f32; 37];
        add_in_place(&mut target, &values);
        for (t, v) in target.iter().zip(&values) {
            assert_eq!(*t, 1.0 + v);
        }
    }
}
