//! A bounds-checked safe front for the `gemm` crate's f32 matrix product.
//!
//! `gemm` only exposes `unsafe fn gemm` over raw pointers and strides. This module is
//! the one place that calls it: every view is checked against its slice before the call, so the
//! rest of the crate stays free of `unsafe`.

/// A read-only strided matrix view: element `(i, j)` is `data[i * row_stride + j * col_stride]`.
/// A transposed view of a row-major matrix is just the same data with the strides swapped.
#[derive(Clone, Copy)]
pub(super) struct MatRef<'a> {
    pub data: &'a [f32],
    pub rows: usize,
    pub cols: usize,
    pub row_stride: usize,
    pub col_stride: usize,
}

impl<'a> MatRef<'a> {
    /// A dense row-major `rows × cols` matrix.
    pub fn row_major(data: &'a [f32], rows: usize, cols: usize) -> Self {
        Self {
            data,
            rows,
            cols,
            row_stride: cols,
            col_stride: 1,
        }
    }

    /// The transpose of a dense row-major `rows × cols` matrix, i.e. a `cols × rows` view.
    pub fn transposed(data: &'a [f32], rows: usize, cols: usize) -> Self {
        Self {
            data,
            rows: cols,
            cols: rows,
            row_stride: 1,
            col_stride: cols,
        }
    }

    fn check_fits(&self, what: &str) {
        if self.rows > 0 && self.cols > 0 {
            let last = (self.rows - 1) * self.row_stride + (self.cols - 1) * self.col_stride;
            assert!(
                last < self.data.len(),
                "gemm: {what} view {}x{} (strides {}, {}) overruns its {} elements",
                self.rows,
                self.cols,
                self.row_stride,
                self.col_stride,
                self.data.len()
            );
        }
    }
}

/// `C ← alpha·A·B + beta·C`, where `C` is `a.rows × b.cols`, row-major with row stride
/// `c_row_stride` (≥ `b.cols`), starting at `c[0]`.
///
/// Panics if the shapes disagree or a view does not fit its slice (a bug in the caller, never
/// a property of the input text).
#[allow(unsafe_code)]
pub(super) fn sgemm(
    alpha: f32,
    a: MatRef<'_>,
    b: MatRef<'_>,
    beta: f32,
    c: &mut [f32],
    c_row_stride: usize,
) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    assert_eq!(k, b.rows, "gemm: inner dimensions differ");
    a.check_fits("A");
    b.check_fits("B");
    if m == 0 || n == 0 {
        return;
    }
    assert!(c_row_stride >= n, "gemm: C rows overlap");
    assert!(
        (m - 1) * c_row_stride + n <= c.len(),
        "gemm: C view {m}x{n} (row stride {c_row_stride}) overruns its {} elements",
        c.len()
    );
    let stride = |s: usize| isize::try_from(s).expect("gemm: stride exceeds isize");
    // SAFETY: the checks above guarantee that every element sgemm reads from `a` and `b`, and
    // every element it writes in `c` (distinct per (i, j) since c_row_stride >= n), lies within
    // the corresponding slice. `c` is borrowed mutably, so it cannot alias `a` or `b`.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            1,
            stride(c_row_stride),
            beta != 0.0,
            a.data.as_ptr(),
            stride(a.col_stride),
            stride(a.row_stride),
            b.data.as_ptr(),
            stride(b.col_stride),
            stride(b.row_stride),
            beta,
            alpha,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_naive_product_with_transposed_operand() {
        // A: 2x3 row-major, W: 4x3 row-major (as in a dense layer), C = A · Wᵀ: 2x4.
        let a = [1.0, 2.0, 3.0, -1.0, 0.5, 2.0];
        let w: Vec<f32> = (0..12).map(|v| v as f32 * 0.25 - 1.0).collect();
        let mut c = vec![1.0; 8];
        sgemm(
            1.0,
            MatRef::row_major(&a, 2, 3),
            MatRef::transposed(&w, 4, 3),
            1.0,
            &mut c,
            4,
        );
        for i in 0..2 {
            for j in 0..4 {
                let expected: f32 = 1.0 + (0..3).map(|p| a[i * 3 + p] * w[j * 3 + p]).sum::<f32>();
                assert!((c[i * 4 + j] - expected).abs() < 1e-6);
            }
        }
    }

    #[test]
    #[should_panic(expected = "overruns")]
    fn rejects_views_that_do_not_fit() {
        let a = [0.0; 5];
        let mut c = [0.0; 4];
        sgemm(
            1.0,
            MatRef::row_major(&a, 2, 3),
            MatRef::row_major(&a, 3, 2),
            0.0,
            &mut c,
            2,
        );
    }
}
