//! One row of `bench solver`: its figures (times, ratio against the fastest reference,
//! workspace, agreement) and how it prints as a table line and as JSON.

use super::*;

pub(super) struct Row {
    pub(super) spec: Spec,
    pub(super) ws: Result<usize, Error>,
    pub(super) before: WorkspaceStats,
    pub(super) after: WorkspaceStats,
    pub(super) ours: Result<(f64, Vec<f64>), Error>,
    pub(super) status: Status,
    /// The reference the row is rated against: the faster one where there are several.
    pub(super) theirs: Theirs,
    /// The other references, compared and timed as well.
    pub(super) others: Vec<Theirs>,
}

impl Row {
    pub(super) fn tflops(&self, t: f64) -> f64 {
        self.spec.flops / t / 1e12
    }

    pub(super) fn ours_s(&self) -> Option<f64> {
        self.ours.as_ref().ok().map(|t| t.0)
    }

    /// gpublas TFLOP/s / `t`'s TFLOP/s.
    pub(super) fn ratio_to(&self, t: &Theirs) -> Option<f64> {
        match (self.ours_s(), t.secs()) {
            (Some(o), Some(t)) if o > 0.0 => Some(t / o),
            _ => None,
        }
    }

    /// gpublas TFLOP/s / the rated reference's TFLOP/s.
    pub(super) fn ratio(&self) -> Option<f64> {
        self.ratio_to(&self.theirs)
    }

    pub(super) fn meets_target(&self) -> Option<bool> {
        Some(self.ratio()? >= self.spec.target)
    }

    /// gpublas disagrees with any reference.
    pub(super) fn disagrees(&self) -> bool {
        std::iter::once(&self.theirs)
            .chain(&self.others)
            .any(|t| t.disagrees(self.spec.tol))
    }

    /// The lines under the row about one reference's comparison.
    pub(super) fn notes(&self, t: &Theirs) {
        let s = &self.spec;
        let Ok(a) = &t.agree else {
            return;
        };
        if a.rel_diff.is_nan() || a.rel_diff > s.tol {
            out!(
                "    gpublas and {} DISAGREE: relative difference {:.2e} > {:.0e}",
                t.name,
                a.rel_diff,
                s.tol
            );
        }
        if let Some(d) = a.piv_diff.filter(|&d| d > 0) {
            out!(
                "    {d} pivots differ from {}'s (the factors then differ in the rows \
                 interchanged)",
                t.name
            );
        }
        let io = a.info_ours.unwrap_or(0);
        if io > 0 || a.info_theirs > 0 {
            out!(
                "    non-zero info: gpublas {io}, {} {} (the inputs are non-singular)",
                t.name,
                a.info_theirs
            );
        }
    }

    pub(super) fn print(&self) {
        let s = &self.spec;
        let ws = match &self.ws {
            Ok(b) => format!("{b:>11}"),
            Err(_) => format!("{:>11}", "error"),
        };
        let their_ws = match &self.theirs.ws {
            Ok(Some(b)) => format!("{b:>11}"),
            Ok(None) => format!("{:>11}", "none"),
            Err(_) => format!("{:>11}", "error"),
        };
        let time = |r: Option<f64>, failed: bool| match r {
            Some(t) => format!("{:9.3} {:7.2}", t * 1e3, self.tflops(t)),
            None if failed => format!("{:>9} {:>7}", "error", ""),
            None => format!("{:>9} {:>7}", "-", "-"),
        };
        let ratio = match self.ratio() {
            Some(r) => format!("{r:6.3}"),
            None => format!("{:>6}", "n/a"),
        };
        let target = match self.meets_target() {
            Some(true) => format!(">={:<4.2} ok ", s.target),
            Some(false) => format!(">={:<4.2} LOW", s.target),
            None => format!(">={:<4.2}    ", s.target),
        };
        let agree = match &self.theirs.agree {
            Ok(a) => {
                let piv = match a.piv_diff {
                    Some(d) => format!("{d:>6}"),
                    None => format!("{:>6}", "-"),
                };
                let mark = if self.disagrees() { "FAIL" } else { "ok  " };
                format!("{:8.1e} {piv} {mark}", a.rel_diff)
            }
            Err(_) => format!("{:>8} {:>6}     ", "n/a", ""),
        };
        out!(
            "{:7} {:11} {:4} {:>22} {} {} | {} | {} | {} {} | {} | {}",
            s.group,
            s.op,
            s.ty,
            s.shape,
            ws,
            their_ws,
            time(self.ours_s(), self.ours.is_err()),
            time(self.theirs.secs(), self.theirs.time.is_err()),
            ratio,
            target,
            agree,
            self.theirs.name
        );
        if self.status != Status::Success {
            out!("    gpublas returned {:?}", self.status);
        }
        self.notes(&self.theirs);
        for t in &self.others {
            let time = match &t.time {
                Ok((sec, _)) => format!(
                    "{:.3} ms, {:.2} TFLOP/s (ratio {})",
                    sec * 1e3,
                    self.tflops(*sec),
                    self.ratio_to(t)
                        .map_or_else(|| "n/a".into(), |r| format!("{r:.3}"))
                ),
                Err(e) => format!("not timed ({e})"),
            };
            let agree = match &t.agree {
                Ok(a) => format!(
                    "rel diff {:.1e}, piv {}",
                    a.rel_diff,
                    a.piv_diff.map_or_else(|| "-".into(), |d| d.to_string())
                ),
                Err(_) => "not compared".into(),
            };
            out!("    also timed against {}: {time}; {agree}", t.name);
            self.notes(t);
        }
        let growths = self.after.growths.saturating_sub(self.before.growths);
        if self.ours.is_ok() && growths > 0 {
            out!("    the gpublas workspace grew {growths} times while timed");
        }
        let timed_ok = self.ours.is_ok() && self.theirs.time.is_ok();
        for (who, e) in [
            ("workspace query", self.ws.as_ref().err()),
            ("cuSOLVER workspace query", self.theirs.ws.as_ref().err()),
            ("gpublas", self.ours.as_ref().err()),
            (self.theirs.name.as_str(), self.theirs.time.as_ref().err()),
            (
                "comparison",
                self.theirs.agree.as_ref().err().filter(|_| timed_ok),
            ),
        ] {
            if let Some(e) = e {
                out!("    {who}: {e}");
            }
        }
    }

    /// One reference's part of the JSON row.
    pub(super) fn their_json(&self, t: &Theirs) -> Value {
        let a = t.agree.as_ref().ok();
        json!({
            "name": t.name,
            "ws_bytes": t.ws.as_ref().ok().copied().flatten(),
            "ws_none": matches!(t.ws, Ok(None)),
            "ws_error": err(t.ws.as_ref().err()),
            "s": t.secs(), "tflops": t.secs().map(|s| self.tflops(s)),
            "samples_s": t.time.as_ref().ok().map(|t| t.1.clone()),
            "error": err(t.time.as_ref().err()),
            "ratio": self.ratio_to(t),
            "max_rel_diff": a.map(|a| a.rel_diff),
            "pivots_differing": a.and_then(|a| a.piv_diff),
            "info_nonzero": a.map(|a| a.info_theirs),
            "diff_error": err(t.agree.as_ref().err()),
            "disagree": t.disagrees(self.spec.tol),
        })
    }

    pub(super) fn json(&self, quick: bool) -> Value {
        let s = &self.spec;
        let t = &self.theirs;
        let a = t.agree.as_ref().ok();
        let refs: Vec<Value> = std::iter::once(t)
            .chain(&self.others)
            .map(|t| self.their_json(t))
            .collect();
        json!({
            "bench": "solver", "group": s.group, "op": s.op, "type": s.ty,
            "shape": s.shape, "flops": s.flops, "quick": quick, "reps": s.reps,
            "ws_bytes": self.ws.as_ref().ok(), "ws_error": err(self.ws.as_ref().err()),
            "cusolver_ws_bytes": t.ws.as_ref().ok().copied().flatten(),
            "cusolver_ws_none": matches!(t.ws, Ok(None)),
            "cusolver_ws_error": err(t.ws.as_ref().err()),
            "ws_capacity": self.after.capacity, "ws_peak_leased": self.after.peak_leased,
            "ws_mode": format!("{:?}", self.after.mode),
            "ws_growths_while_timed": self.after.growths.saturating_sub(self.before.growths),
            "ours_s": self.ours_s(), "ours_tflops": self.ours_s().map(|t| self.tflops(t)),
            "ours_samples_s": self.ours.as_ref().ok().map(|t| t.1.clone()),
            "ours_status": self.ours.is_ok().then(|| format!("{:?}", self.status)),
            "ours_error": err(self.ours.as_ref().err()),
            "reference": t.name,
            "cusolver_s": t.secs(),
            "cusolver_tflops": t.secs().map(|t| self.tflops(t)),
            "cusolver_samples_s": t.time.as_ref().ok().map(|t| t.1.clone()),
            "cusolver_error": err(t.time.as_ref().err()),
            "ratio": self.ratio(), "target": s.target, "meets_target": self.meets_target(),
            "max_rel_diff": a.map(|a| a.rel_diff),
            "pivots_differing": a.and_then(|a| a.piv_diff),
            "info_nonzero_ours": a.and_then(|a| a.info_ours),
            "info_nonzero_cusolver": a.map(|a| a.info_theirs),
            "diff_error": err(t.agree.as_ref().err()),
            "diff_tol": s.tol, "disagree": self.disagrees(),
            "references": refs,
        })
    }
}
