//! `errors.svg` of an `accuracy` run: the error (in the run's metric: relative error,
//! or ulps of the true value) of a sample of the evaluated inputs against the input, the view Herbie's reports give. One panel per swept
//! (floating-point) parameter; the input on a signed-log scale, the error on a log
//! scale; located zeros and poles as vertical lines; every reported input (special
//! values and worst inputs) as a marker of its own in each panel (at the right edge
//! when its input is not finite; samples whose input is not finite are left out).
//!
//! Written by hand, not with a plotting crate: a few hundred lines of SVG elements are
//! all it takes. Classes name what each element stands for (`sample`, `reported`,
//! `zero`, `pole`), for the page's style sheet and for tests.

use crate::accuracy::ulps_text;
use crate::escape::escape;
use fpforge_accuracy::metric::figure;
use fpforge_accuracy::zeros::SingularityKind;
use fpforge_accuracy::{AccuracyReport, CoordInfo, ErrorMetric};
use fpir::Type;
use std::fmt::Write as _;

/// Size of one panel and its margins, in SVG units.
const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 28.0;
const BOTTOM: f64 = 36.0;

/// Panels drawn at most (the first swept parameters).
const MAX_PANELS: usize = 8;

/// Decades below the smallest non-zero error where exact results are drawn.
const ZERO_ERROR_FLOOR: f64 = 1.0;

/// One marker: where, and what it stands for.
struct Mark {
    x: f64,
    /// The error in the run's metric.
    error: f64,
}

/// The SVG of `report`'s errors, one panel per swept parameter (none: a note).
pub fn errors_svg(report: &AccuracyReport) -> String {
    let panels: Vec<usize> = report
        .coords
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c.ty, Type::Float(_)))
        .map(|(i, _)| i)
        .take(MAX_PANELS)
        .collect();
    let height = HEIGHT * panels.len().max(1) as f64;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <style>.sample{{fill:#888;fill-opacity:.5}}.reported{{fill:none;stroke:#c00;stroke-width:1.5}}\
         .zero{{stroke:#06c;stroke-dasharray:4 3}}.pole{{stroke:#a0a;stroke-dasharray:2 2}}\
         .frame{{fill:none;stroke:#444}}.tick{{stroke:#ccc}}</style>\n"
    );
    if panels.is_empty() {
        let _ = writeln!(
            svg,
            "<text x=\"{LEFT}\" y=\"{TOP}\">no floating-point parameter to plot</text>"
        );
    }
    for (n, &coord) in panels.iter().enumerate() {
        panel(&mut svg, report, coord, HEIGHT * n as f64);
    }
    svg.push_str("</svg>\n");
    svg
}

/// The panel of coordinate `coord`, its top at `y0`.
fn panel(svg: &mut String, report: &AccuracyReport, coord: usize, y0: f64) {
    let samples: Vec<Mark> = report
        .samples
        .iter()
        .filter_map(|s| {
            Some(Mark {
                x: *s.point.get(coord)?,
                error: match report.metric {
                    ErrorMetric::Ulps => s.ulps,
                    ErrorMetric::Relative => s.rel,
                },
            })
        })
        .filter(|m| m.x.is_finite())
        .collect();
    let info = &report.coords[coord];
    let reported: Vec<Mark> = report
        .special_values
        .iter()
        .map(|s| &s.finding)
        .chain(&report.top)
        .map(|f| Mark {
            x: coord_value(info, f.test.coords.get(coord).copied()),
            error: figure(report.metric, &f.error),
        })
        .collect();
    let lines: Vec<(SingularityKind, f64)> = report
        .singularities
        .iter()
        .filter(|s| s.coord == coord)
        .map(|s| (s.kind, s.below))
        .collect();
    let all_x = samples
        .iter()
        .chain(&reported)
        .map(|m| m.x)
        .chain(lines.iter().map(|l| l.1));
    let xs = SignedLog::fit(all_x);
    let ys = ErrorScale::fit(samples.iter().chain(&reported).map(|m| m.error));
    let frame = Frame { y0, xs, ys };
    frame.axes(svg, &info.name, report.metric);
    for (kind, x) in &lines {
        let px = frame.px(*x);
        let _ = writeln!(
            svg,
            "<line class=\"{}\" x1=\"{px:.1}\" y1=\"{:.1}\" x2=\"{px:.1}\" y2=\"{:.1}\"/>",
            kind.label(),
            y0 + TOP,
            y0 + HEIGHT - BOTTOM
        );
    }
    for m in &samples {
        let _ = writeln!(
            svg,
            "<circle class=\"sample\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"1.6\"/>",
            frame.px(m.x),
            frame.py(m.error)
        );
    }
    for (rank, m) in reported.iter().enumerate() {
        let _ = writeln!(
            svg,
            "<circle class=\"reported\" data-order=\"{}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\"><title>{} = {:e}: {}</title></circle>",
            rank + 1,
            frame.px(m.x),
            frame.py(m.error),
            escape(&info.name),
            m.x,
            match report.metric {
                ErrorMetric::Ulps => format!("{} ulps", ulps_text(m.error)),
                ErrorMetric::Relative => format!("relative error {:e}", m.error),
            }
        );
    }
}

/// The value of a reported input's coordinate (NaN when it has none).
fn coord_value(info: &CoordInfo, bits: Option<u64>) -> f64 {
    bits.map_or(f64::NAN, |b| info.value(b))
}

/// The signed-log scale of the input: `sign(x) (log10|x| - low + 1)` above `10^low`,
/// linear below, so that both signs and every binade show.
#[derive(Clone, Copy)]
struct SignedLog {
    /// The smallest decade of a non-zero input.
    low: f64,
    /// The scaled range drawn.
    min: f64,
    max: f64,
}

impl SignedLog {
    fn fit(xs: impl Iterator<Item = f64>) -> SignedLog {
        let xs: Vec<f64> = xs.filter(|x| x.is_finite()).collect();
        let low = xs
            .iter()
            .filter(|x| **x != 0.0)
            .map(|x| x.abs().log10().floor())
            .fold(f64::INFINITY, f64::min);
        let low = if low.is_finite() { low } else { 0.0 };
        let scale = SignedLog {
            low,
            min: 0.0,
            max: 0.0,
        };
        let (min, max) = xs
            .iter()
            .map(|&x| scale.t(x))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), t| {
                (a.min(t), b.max(t))
            });
        let (min, max) = if min.is_finite() {
            (min, max)
        } else {
            (-1.0, 1.0)
        };
        let pad = ((max - min) * 0.03).max(0.05);
        SignedLog {
            low,
            min: min - pad,
            max: max + pad,
        }
    }

    fn t(&self, x: f64) -> f64 {
        let m = x.abs();
        let floor = 10f64.powf(self.low);
        let t = if m >= floor {
            m.log10() - self.low + 1.0
        } else {
            m / floor
        };
        t.copysign(x)
    }

    /// The input at scaled position `t` (the inverse of [`SignedLog::t`]).
    fn x(&self, t: f64) -> f64 {
        let m = t.abs();
        let x = if m >= 1.0 {
            10f64.powf(m - 1.0 + self.low)
        } else {
            m * 10f64.powf(self.low)
        };
        x.copysign(t)
    }
}

/// The log scale of the error: decades from the smallest non-zero error to the largest
/// finite one; exact results at the bottom, infinite or NaN errors at the top.
#[derive(Clone, Copy)]
struct ErrorScale {
    min: f64,
    max: f64,
}

impl ErrorScale {
    fn fit(rels: impl Iterator<Item = f64>) -> ErrorScale {
        let (lo, hi) = rels
            .filter(|r| r.is_finite() && *r > 0.0)
            .map(f64::log10)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), l| {
                (a.min(l), b.max(l))
            });
        if !lo.is_finite() {
            return ErrorScale {
                min: -17.0,
                max: 1.0,
            };
        }
        ErrorScale {
            min: lo.floor() - ZERO_ERROR_FLOOR,
            max: (hi.ceil() + 1.0).max(lo.floor() + 1.0),
        }
    }

    fn t(&self, rel: f64) -> f64 {
        if rel.is_nan() || rel == f64::INFINITY {
            self.max
        } else if rel <= 0.0 {
            self.min
        } else {
            rel.log10().clamp(self.min, self.max)
        }
    }
}

/// One panel's mapping from data to SVG units.
struct Frame {
    y0: f64,
    xs: SignedLog,
    ys: ErrorScale,
}

impl Frame {
    fn px(&self, x: f64) -> f64 {
        let t = if x.is_finite() {
            self.xs.t(x)
        } else {
            self.xs.max
        };
        LEFT + (t - self.xs.min) / (self.xs.max - self.xs.min) * (WIDTH - LEFT - RIGHT)
    }

    fn py(&self, rel: f64) -> f64 {
        let t = self.ys.t(rel);
        let inner = HEIGHT - TOP - BOTTOM;
        self.y0 + TOP + (self.ys.max - t) / (self.ys.max - self.ys.min) * inner
    }

    /// The frame, the decade ticks of the error, a few ticks of the input, the titles.
    fn axes(&self, svg: &mut String, name: &str, metric: ErrorMetric) {
        let (top, bottom) = (self.y0 + TOP, self.y0 + HEIGHT - BOTTOM);
        let _ = writeln!(
            svg,
            "<rect class=\"frame\" x=\"{LEFT}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>",
            WIDTH - LEFT - RIGHT,
            bottom - top
        );
        let step = ((self.ys.max - self.ys.min) / 6.0).ceil().max(1.0);
        let mut d = self.ys.min.ceil();
        while d <= self.ys.max {
            let y = self.py(10f64.powf(d));
            let _ = writeln!(
                svg,
                "<line class=\"tick\" x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">1e{d}</text>",
                WIDTH - RIGHT,
                LEFT - 4.0,
                y + 4.0
            );
            d += step;
        }
        for k in 0..=4 {
            let t = self.xs.min + (self.xs.max - self.xs.min) * f64::from(k) / 4.0;
            let x = self.xs.x(t);
            let px = self.px(x);
            let _ = writeln!(
                svg,
                "<text x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{x:.3e}</text>",
                bottom + 14.0
            );
        }
        let _ = writeln!(
            svg,
            "<text x=\"{LEFT}\" y=\"{:.1}\">{} against {} (signed-log scale); \
             dashed: zeros (blue), poles (purple); circles: reported inputs</text>",
            self.y0 + TOP - 8.0,
            match metric {
                ErrorMetric::Ulps => "error in ulps",
                ErrorMetric::Relative => "relative error",
            },
            escape(name)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signed_log_scale_is_monotonic_and_inverts() {
        let s = SignedLog::fit([-1e3, -2.0, 0.0, 1e-3, 5.0, 1e6].into_iter());
        let xs = [-1e3, -2.0, -1e-4, 0.0, 1e-3, 5.0, 1e6];
        let ts: Vec<f64> = xs.iter().map(|&x| s.t(x)).collect();
        assert!(ts.windows(2).all(|w| w[0] < w[1]), "{ts:?}");
        for x in xs {
            assert!((s.x(s.t(x)) - x).abs() <= 1e-9 * x.abs().max(1e-300));
        }
    }
}
