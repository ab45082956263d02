//! `gpublas bench … --svg FILE`: the benchmark's rows as a plot of a rate (TB/s, GB/s or
//! TFLOP/s) against the problem size, gpublas and cuBLAS side by side (solid and dashed lines of
//! one colour per routine), with the best rate any of them reached as a dotted ceiling line.
//!
//! Rows are the JSON objects the benches print with `--json`: a series is every row with the
//! same op, type and group; x is `n`, y the first rate pair present (`ours_tbs`/`cublas_tbs`,
//! `ours_gbs`/`cublas_gbs`, `ours_tflops`/`cublas_tflops`). Series with fewer than three sizes
//! are left out (a sweep such as `bench blas1 --sweep` gives one size per power of four).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use gpublas::Error;
use plotters::prelude::*;
use serde_json::Value;

/// The `--svg` path of this run, if any.
pub(crate) static SVG: OnceLock<String> = OnceLock::new();

/// Writes the plot of `rows` when `--svg` was given.
pub(crate) fn maybe(title: &str, rows: &[Value]) -> Result<(), Error> {
    match SVG.get() {
        Some(path) => {
            write_svg(path, title, rows)?;
            eprintln!("plot written to {path}");
            Ok(())
        }
        None => Ok(()),
    }
}

/// The rate pairs a plot can show, with their axis labels.
const RATES: &[(&str, &str, &str)] = &[
    ("ours_tbs", "cublas_tbs", "TB/s"),
    ("ours_gbs", "cublas_gbs", "GB/s"),
    ("ours_tflops", "cublas_tflops", "TFLOP/s"),
];

/// One line: label and (n, rate) points sorted by n.
type Series = (String, Vec<(f64, f64)>);

/// Collects the series of `rows`: gpublas and cuBLAS lines per (op, type, group).
pub(crate) fn series(rows: &[Value]) -> Option<(&'static str, Vec<Series>, Vec<Series>)> {
    let (ours_key, theirs_key, unit) = RATES
        .iter()
        .copied()
        .find(|(o, _, _)| rows.iter().any(|r| r[*o].is_number()))?;
    let mut ours: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    let mut theirs: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        let Some(n) = r["n"].as_f64() else { continue };
        let label = ["op", "type", "group"]
            .iter()
            .filter_map(|k| r[*k].as_str())
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(y) = r[ours_key].as_f64() {
            ours.entry(label.clone()).or_default().push((n, y));
        }
        if let Some(y) = r[theirs_key].as_f64() {
            theirs.entry(label).or_default().push((n, y));
        }
    }
    let keep = |m: BTreeMap<String, Vec<(f64, f64)>>| -> Vec<Series> {
        m.into_iter()
            .filter(|(_, p)| p.len() >= 3)
            .map(|(l, mut p)| {
                p.sort_by(|a, b| a.0.total_cmp(&b.0));
                (l, p)
            })
            .collect()
    };
    let (ours, theirs) = (keep(ours), keep(theirs));
    (!ours.is_empty()).then_some((unit, ours, theirs))
}

/// Writes the plot of `rows` to `path`.
pub(crate) fn write_svg(path: &str, title: &str, rows: &[Value]) -> Result<(), Error> {
    let fail = |e: &dyn std::fmt::Display| Error::InvalidValue(format!("plotting {path}: {e}"));
    let (unit, ours, theirs) = series(rows).ok_or_else(|| {
        Error::InvalidValue(format!(
            "nothing to plot into {path}: no series of three or more sizes with a rate \
             (try `gpublas bench blas1 --sweep --svg {path}`)"
        ))
    })?;
    let all = ours.iter().chain(theirs.iter()).flat_map(|s| s.1.iter());
    let (mut xmin, mut xmax, mut ymax) = (f64::MAX, 0.0f64, 0.0f64);
    for &(x, y) in all {
        xmin = xmin.min(x);
        xmax = xmax.max(x);
        ymax = ymax.max(y);
    }
    let root = SVGBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d((xmin..xmax * 1.05).log_scale(), 0.0..ymax * 1.12)
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .x_desc("n (elements; log scale)")
        .y_desc(unit)
        .x_label_formatter(&|x| {
            let l = x.log2();
            if (l - l.round()).abs() < 1e-6 {
                format!("2^{}", l.round() as i64)
            } else {
                format!("{x:.0}")
            }
        })
        .draw()
        .map_err(|e| fail(&e))?;
    for (i, (label, pts)) in ours.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(|e| fail(&e))?
            .label(format!("gpublas {label}"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        if let Some((_, t)) = theirs.iter().find(|(l, _)| l == label) {
            let dashed = t.windows(2).flat_map(|w| {
                // Dashes: the first 60% of each segment (in log x), enough to tell the lines apart.
                let (a, b) = (w[0], w[1]);
                let xm = (a.0.ln() + 0.6 * (b.0.ln() - a.0.ln())).exp();
                let ym = a.1 + 0.6 * (b.1 - a.1);
                std::iter::once(PathElement::new(vec![a, (xm, ym)], color.stroke_width(1)))
            });
            chart
                .draw_series(dashed)
                .map_err(|e| fail(&e))?
                .label(format!("cuBLAS {label}"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 10, y)], color.stroke_width(1))
                });
        }
    }
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(xmin, ymax), (xmax, ymax)],
            BLACK.stroke_width(1),
        )))
        .map_err(|e| fail(&e))?
        .label(format!("best measured: {ymax:.3} {unit} (ceiling)"))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], BLACK.stroke_width(1)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rows() -> Vec<Value> {
        (10..16)
            .map(|l| {
                let n = 1u64 << l;
                json!({"op": "dot", "type": "f32", "group": "sweep", "n": n,
                       "ours_tbs": l as f64 / 10.0, "cublas_tbs": l as f64 / 11.0})
            })
            .chain(std::iter::once(
                json!({"op": "nrm2", "type": "f32", "group": "large", "n": 4, "ours_tbs": 1.0}),
            ))
            .collect()
    }

    #[test]
    fn series_group_rows_and_drop_short_ones() {
        let (unit, ours, theirs) = series(&rows()).unwrap();
        assert_eq!(unit, "TB/s");
        assert_eq!(ours.len(), 1);
        assert_eq!(ours[0].0, "dot f32 sweep");
        assert_eq!(ours[0].1.len(), 6);
        assert_eq!(theirs[0].1[0], (1024.0, 1.0 / 1.1));
        assert!(series(&rows()[6..]).is_none());
    }

    #[test]
    fn writes_an_svg() {
        let path = std::env::temp_dir().join(format!("gpublas-plot-{}.svg", std::process::id()));
        let p = path.to_str().unwrap();
        write_svg(p, "test", &rows()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("<svg") && text.contains("gpublas dot f32 sweep"));
        let _ = std::fs::remove_file(&path);
        assert!(write_svg(p, "test", &rows()[6..]).is_err());
    }
}
