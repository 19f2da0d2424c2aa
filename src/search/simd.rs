//! The dot product of the dense lane, with AVX2 + FMA when the CPU has them, and a way to run
//! any vectorisable loop with them ([`vectorized`]).
//!
//! Builds target baseline x86-64 (SSE2), so the compiler cannot use AVX on its own; the
//! HNSW search spends most of its time here, and AVX2 + FMA does the work in a third of the
//! instructions. The `unsafe` here: the calls into AVX2 code, made only after the CPU was seen
//! to support it, the unaligned loads of the dot product, and the prefetch hint.

use std::sync::OnceLock;

/// `Σ a[i]·b[i]` over the shorter length.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        #[allow(unsafe_code)]
        // SAFETY: the CPU supports AVX2 and FMA (checked at run time just above).
        return unsafe { dot_avx2_fma(a, b) };
    }
    dot_portable(a, b)
}

/// A loop worth compiling twice: once for baseline x86-64 and once with AVX2 + FMA.
/// Implementations mark `run` `#[inline(always)]` and call only `#[inline(always)]` helpers,
/// so the whole body is inlined into [`vectorized`]'s AVX2 copy before the compiler
/// vectorises it (a closure would not be: it is compiled, and vectorised 4-wide, on its own).
pub trait Kernel {
    type Output;
    fn run(self) -> Self::Output;
}

/// Runs `kernel` with 8-wide AVX2 registers when the CPU has AVX2 and FMA, 4-wide SSE2
/// otherwise. The results are the same on both paths: nothing is contracted into FMA
/// without an explicit `mul_add`.
#[inline(always)]
pub fn vectorized<K: Kernel>(kernel: K) -> K::Output {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_fma() {
        #[allow(unsafe_code)]
        // SAFETY: the CPU supports AVX2 and FMA (checked at run time just above).
        return unsafe { run_avx2_fma(kernel) };
    }
    kernel.run()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn run_avx2_fma<K: Kernel>(kernel: K) -> K::Output {
    kernel.run()
}

#[cfg(target_arch = "x86_64")]
fn has_avx2_fma() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    })
}

/// Asks the CPU to start loading a vector's first cache lines (up to 8), so a search can
/// compare one vector while the next ones are on their way.
pub fn prefetch(vector: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    for line in vector.chunks(16).take(8) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        #[allow(unsafe_code)]
        // SAFETY: a prefetch is a hint that never faults; the address is inside `vector`.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast())
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = vector;
}

/// Eight independent lanes so the compiler vectorises it on any target.
fn dot_portable(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; 8];
    let chunks = n / 8 * 8;
    for (ca, cb) in a[..chunks].chunks_exact(8).zip(b[..chunks].chunks_exact(8)) {
        for i in 0..8 {
            acc[i] += ca[i] * cb[i];
        }
    }
    let mut sum: f32 = acc.iter().sum();
    for i in chunks..n {
        sum += a[i] * b[i];
    }
    sum
}

/// The same sum in 32 lanes (four 8-wide FMA accumulators), with the tail done portably.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(unsafe_code)]
fn dot_avx2_fma(a: &[f32], b: &[f32]) -> f32 {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [_mm256_setzero_ps(); 4];
    let blocks = n / 32;
    for block in 0..blocks {
        let at = block * 32;
        for (lane, acc) in acc.iter_mut().enumerate() {
            let start = at + lane * 8;
            let x: &[f32; 8] = a[start..start + 8].try_into().expect("8 floats");
            let y: &[f32; 8] = b[start..start + 8].try_into().expect("8 floats");
            // SAFETY: `x` and `y` are 8 floats each; unaligned loads are allowed.
            let (x, y) = unsafe { (_mm256_loadu_ps(x.as_ptr()), _mm256_loadu_ps(y.as_ptr())) };
            *acc = _mm256_fmadd_ps(x, y, *acc);
        }
    }
    let sum = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
    let mut lanes = [0.0f32; 8];
    // SAFETY: `lanes` holds 8 floats; unaligned stores are allowed.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), sum) };
    let tail = blocks * 32;
    lanes.iter().sum::<f32>() + dot_portable(&a[tail..], &b[tail..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_gives_the_same_sum() {
        for n in [0, 1, 7, 8, 31, 32, 33, 128, 384, 1000] {
            let a: Vec<f32> = (0..n)
                .map(|i| ((i * 7919) % 97) as f32 / 97.0 - 0.5)
                .collect();
            let b: Vec<f32> = (0..n)
                .map(|i| ((i * 104_729) % 89) as f32 / 89.0 - 0.5)
                .collect();
            let exact: f64 = a
                .iter()
                .zip(&b)
                .map(|(x, y)| f64::from(*x) * f64::from(*y))
                .sum();
            for value in [dot(&a, &b), dot_portable(&a, &b)] {
                assert!(
                    (f64::from(value) - exact).abs() < 1e-4,
                    "{n}: {value} vs {exact}"
                );
            }
        }
        assert_eq!(
            dot(&[1.0, 2.0, 3.0], &[4.0, 5.0]),
            14.0,
            "the shorter length"
        );
    }
}
