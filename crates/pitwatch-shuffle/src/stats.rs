//! The Poisson tail used for the preserved pairs' p-value, computed in log space so that it stays
//! accurate far into the tail (p-values of 1e-30 and below are ordinary for a slug).

/// P(X ≥ k) for X ~ Poisson(`mean`). 1 for k = 0; 0 < value ≤ 1 otherwise (a mean of 0 gives 0
/// for k ≥ 1).
pub fn poisson_upper_tail(k: u32, mean: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if mean.is_nan() || mean <= 0.0 {
        return 0.0;
    }
    let k_f = f64::from(k);
    if k_f <= mean {
        // The upper tail is large: 1 − P(X ≤ k − 1), summing the lower terms.
        let lower = lower_sum(k - 1, mean);
        return (1.0 - lower).clamp(0.0, 1.0);
    }
    // Sum the terms from k upwards; they fall at least geometrically once past the mean.
    let mut log_term = -mean + k_f * mean.ln() - ln_factorial(k);
    let mut sum = 0.0;
    let mut i = k_f;
    loop {
        let term = log_term.exp();
        sum += term;
        // Past the mean each term is smaller than the last by a factor mean / i < 1; stop when
        // they no longer change the sum (an underflowed first term gives 0: p < 1e-300).
        if term <= sum * 1e-17 || i > k_f + 100_000.0 {
            break;
        }
        i += 1.0;
        log_term += mean.ln() - i.ln();
    }
    sum.clamp(0.0, 1.0)
}

/// P(X ≤ k).
fn lower_sum(k: u32, mean: f64) -> f64 {
    let mut log_term = -mean;
    let mut sum = log_term.exp();
    for i in 1..=k {
        log_term += mean.ln() - f64::from(i).ln();
        sum += log_term.exp();
    }
    sum
}

/// ln(k!) by summation (k is at most a few hundred here).
fn ln_factorial(k: u32) -> f64 {
    (2..=k).map(|i| f64::from(i).ln()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_matches_known_values() {
        assert_eq!(poisson_upper_tail(0, 3.0), 1.0);
        // P(X ≥ 1) = 1 − e^{-m}.
        assert!((poisson_upper_tail(1, 2.0) - (1.0 - (-2.0f64).exp())).abs() < 1e-12);
        // P(X ≥ 3) for mean 1: 1 − e^{-1}(1 + 1 + 1/2) = 0.0803013970713942.
        assert!((poisson_upper_tail(3, 1.0) - 0.080_301_397_071_394_2).abs() < 1e-12);
        // Far in the tail: P(X ≥ 200) for mean 64 = 5.131816028824361e-42 (mpmath, 50 digits).
        let p = poisson_upper_tail(200, 64.0);
        assert!((p / 5.131_816_028_824_361e-42 - 1.0).abs() < 1e-9, "{p}");
        assert_eq!(poisson_upper_tail(5, 0.0), 0.0);
    }

    #[test]
    fn the_tail_falls_as_k_grows() {
        let mut last = 1.0;
        for k in 0..300 {
            let p = poisson_upper_tail(k, 64.0);
            assert!(p <= last + 1e-15, "k {k}: {p} > {last}");
            last = p;
        }
    }
}
