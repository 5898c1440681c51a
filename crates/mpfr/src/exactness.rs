//! Whether a float operation was exact on its concrete operands: the error-free steps of
//! compensated arithmetic (`(a + b) - a`, Sterbenz subtractions, the error terms of
//! TwoSum and TwoProduct) round nothing, so the shadow's blame must not charge them with
//! the error their result carries: that error came in with an operand and was only
//! exposed, by cancellation, which the blame counts on its own.
//!
//! Decided in the operands' own format with the classic error-free transformations
//! (TwoSum for sums and differences, a fused multiply-add for products and quotients),
//! which is exact whenever the result is finite.

use fpir::{FloatBinOp, FloatTy};

/// Whether `result`, the concrete `a op b` in `ty` (raw bits), is the exact real result.
/// False for results that are not finite.
pub fn is_exact(op: FloatBinOp, ty: FloatTy, a: u64, b: u64, result: u64) -> bool {
    match ty {
        FloatTy::F64 => exact_f64(
            op,
            f64::from_bits(a),
            f64::from_bits(b),
            f64::from_bits(result),
        ),
        FloatTy::F32 => exact_f32(
            op,
            f32::from_bits(a as u32),
            f32::from_bits(b as u32),
            f32::from_bits(result as u32),
        ),
    }
}

macro_rules! exact_in {
    ($name:ident, $t:ty) => {
        fn $name(op: FloatBinOp, a: $t, b: $t, r: $t) -> bool {
            if !r.is_finite() || !a.is_finite() || !b.is_finite() {
                return false;
            }
            match op {
                FloatBinOp::Fadd => two_sum_error(a, b, r) == 0.0,
                FloatBinOp::Fsub => two_sum_error(a, -b, r) == 0.0,
                FloatBinOp::Fmul => a.mul_add(b, -r) == 0.0,
                FloatBinOp::Fdiv => b != 0.0 && (-r).mul_add(b, a) == 0.0,
                // fmod's result is always the exact remainder.
                FloatBinOp::Frem => true,
            }
        }
    };
}

exact_in!(exact_f64, f64);
exact_in!(exact_f32, f32);

/// The rounding error of `s = fl(a + b)` (Knuth's TwoSum), exact for a finite `s`.
fn two_sum_error<T>(a: T, b: T, s: T) -> T
where
    T: Copy + std::ops::Sub<Output = T> + std::ops::Add<Output = T>,
{
    let bb = s - a;
    (a - (s - bb)) + (b - bb)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(op: FloatBinOp, a: f64, b: f64, r: f64) -> bool {
        is_exact(op, FloatTy::F64, a.to_bits(), b.to_bits(), r.to_bits())
    }

    #[test]
    fn error_free_steps_are_exact_and_roundings_are_not() {
        let (x, y) = (1.0, 1e-17);
        let hi = x + y;
        assert!(!exact(FloatBinOp::Fadd, x, y, hi), "1 + 1e-17 rounds");
        assert!(exact(FloatBinOp::Fsub, hi, x, hi - x), "Sterbenz: hi - x");
        let lo = y - (hi - x);
        assert!(
            exact(FloatBinOp::Fsub, y, hi - x, lo),
            "TwoSum's error term"
        );
        assert!(exact(FloatBinOp::Fmul, 3.0, 0.5, 1.5));
        assert!(!exact(FloatBinOp::Fmul, 0.1, 0.1, 0.1 * 0.1));
        assert!(exact(FloatBinOp::Fdiv, 3.0, 4.0, 0.75));
        assert!(!exact(FloatBinOp::Fdiv, 1.0, 3.0, 1.0 / 3.0));
        assert!(!exact(FloatBinOp::Fadd, f64::MAX, f64::MAX, f64::INFINITY));
        let f = |v: f32| u64::from(v.to_bits());
        let (a, b) = (1.0f32, 1e-9f32);
        assert!(!is_exact(
            FloatBinOp::Fadd,
            FloatTy::F32,
            f(a),
            f(b),
            f(a + b)
        ));
        assert!(is_exact(
            FloatBinOp::Fsub,
            FloatTy::F32,
            f(a + b),
            f(a),
            f((a + b) - a)
        ));
    }
}
