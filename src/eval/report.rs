//! `redline eval report`: one self-contained page (no network, no script)
//! comparing runs — success, latency and cost per run as plots drawn with
//! `plotters` into inline SVG, the summary per run, and the per-task
//! table.

use std::fmt::Write as _;

use plotters::prelude::*;

use super::results::RunResults;

/// Colours of the runs' bars, in order.
const COLOURS: [RGBColor; 6] = [
    RGBColor(37, 99, 235),
    RGBColor(22, 163, 74),
    RGBColor(217, 119, 6),
    RGBColor(147, 51, 234),
    RGBColor(220, 38, 38),
    RGBColor(8, 145, 178),
];

/// The page for `runs`.
pub fn html(runs: &[RunResults]) -> String {
    let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
    let success: Vec<f64> = runs
        .iter()
        .map(|r| r.summary.success_rate * 100.0)
        .collect();
    let p50: Vec<f64> = runs
        .iter()
        .map(|r| r.summary.latency_p50_ms as f64 / 1000.0)
        .collect();
    let p95: Vec<f64> = runs
        .iter()
        .map(|r| r.summary.latency_p95_ms as f64 / 1000.0)
        .collect();
    let cost: Vec<f64> = runs
        .iter()
        .map(|r| r.summary.cost_usd / r.summary.tasks.max(1) as f64)
        .collect();
    let mut page = String::from(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Redline eval report</title><style>\
         body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1f2937}\
         h1{font-size:20px}h2{font-size:16px;margin-top:28px}\
         table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d1d5db;padding:3px 8px;text-align:right}\
         th:first-child,td:first-child{text-align:left}.ok{color:#15803d}.no{color:#b91c1c}\
         .plots{display:flex;flex-wrap:wrap;gap:12px}</style></head><body><h1>Redline eval report</h1>",
    );
    let _ = write!(
        page,
        "<p>{} runs of {} tasks.</p>",
        runs.len(),
        runs.first().map_or(0, |r| r.summary.tasks)
    );
    page.push_str("<div class=\"plots\">");
    page.push_str(&bars("Task success (%)", &labels, &[("success", &success)]));
    page.push_str(&bars(
        "Task latency (s)",
        &labels,
        &[("p50", &p50), ("p95", &p95)],
    ));
    page.push_str(&bars("Cost per task (USD)", &labels, &[("cost", &cost)]));
    page.push_str("</div>");
    page.push_str(&summary_table(runs));
    page.push_str(&task_table(runs));
    page.push_str("</body></html>\n");
    page
}

/// A bar chart of `series` (each a value per label), as inline SVG.
fn bars(title: &str, labels: &[&str], series: &[(&str, &[f64])]) -> String {
    if series.iter().all(|(_, v)| v.iter().all(|x| *x == 0.0)) {
        return format!(
            "<p>{title}: zero for every run (local models and unpriced ones cost nothing here).</p>"
        );
    }
    let mut svg = String::new();
    let top = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.15;
    let drawn = (|| -> Result<(), Box<dyn std::error::Error + '_>> {
        let root = SVGBackend::with_string(&mut svg, (420, 280)).into_drawing_area();
        root.fill(&WHITE)?;
        let n = labels.len().max(1) as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(0f64..n, 0f64..top)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(labels.len() * 2 + 1)
            .x_label_formatter(&|x| {
                let i = x.floor() as usize;
                if (x - x.floor() - 0.5).abs() < 1e-6 {
                    labels.get(i).map_or(String::new(), |l| (*l).to_owned())
                } else {
                    String::new()
                }
            })
            .draw()?;
        let width = 0.8 / series.len() as f64;
        for (k, (name, values)) in series.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            chart
                .draw_series(values.iter().enumerate().map(|(i, v)| {
                    let x = i as f64 + 0.1 + k as f64 * width;
                    Rectangle::new([(x, 0.0), (x + width * 0.9, *v)], colour.filled())
                }))?
                .label(*name)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled())
                });
        }
        if series.len() > 1 {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()?;
        }
        root.present()?;
        Ok(())
    })();
    match drawn {
        Ok(()) => svg,
        Err(e) => format!("<p>{title}: the plot could not be drawn ({e})</p>"),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn summary_table(runs: &[RunResults]) -> String {
    let mut out = String::from(
        "<h2>Summary</h2><table><tr><th>run</th><th>model</th><th>success</th><th>accepted hunks</th><th>damage flagged</th><th>flagged, clean tasks</th><th>conflicts</th><th>tools / success</th><th>p50 s</th><th>p95 s</th><th>tokens in / out</th><th>cost $</th><th>asked</th><th>needless questions</th><th>malformed / job</th><th>relocations</th><th>unintended bytes proposed / written</th></tr>",
    );
    for r in runs {
        let s = &r.summary;
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}/{} ({:.0}%)</td><td>{:.0}%</td><td>{:.0}% of {}</td><td>{:.1}%</td><td>{:.0}%</td><td>{:.1}</td><td>{:.1}</td><td>{:.1}</td><td>{} / {}</td><td>{:.4}</td><td>{:.0}%</td><td>{}</td><td>{:.2}</td><td>{}</td><td>{} / {}</td></tr>",
            escape(&r.label),
            escape(&r.model),
            s.successes,
            s.tasks,
            s.success_rate * 100.0,
            s.accepted_hunk_ratio * 100.0,
            s.damage_flagged_ratio * 100.0,
            s.damaging,
            s.clean_flag_rate * 100.0,
            s.conflict_rate * 100.0,
            s.tool_calls_per_success,
            s.latency_p50_ms as f64 / 1000.0,
            s.latency_p95_ms as f64 / 1000.0,
            s.input_tokens,
            s.output_tokens,
            s.cost_usd,
            s.clarification_rate * 100.0,
            s.unnecessary_questions,
            s.malformed_edit_rate,
            s.relocations,
            s.unintended_bytes_proposed,
            s.unintended_bytes_written,
        );
    }
    out.push_str("</table>");
    out
}

fn task_table(runs: &[RunResults]) -> String {
    let mut ids: Vec<&str> = runs
        .iter()
        .flat_map(|r| r.tasks.iter().map(|t| t.id.as_str()))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let mut out = String::from("<h2>Tasks</h2><table><tr><th>task</th>");
    for r in runs {
        let _ = write!(out, "<th>{}</th>", escape(&r.label));
    }
    out.push_str("</tr>");
    for id in ids {
        let _ = write!(out, "<tr><td>{}</td>", escape(id));
        for r in runs {
            let cell = match r.tasks.iter().find(|t| t.id == id) {
                Some(t) if t.success => format!(
                    "<span class=\"ok\">✓</span> {:.1} s",
                    t.latency_ms as f64 / 1000.0
                ),
                Some(t) => format!(
                    "<span class=\"no\" title=\"{}\">✗</span> {:.1} s",
                    escape(&t.failures.join("\n")),
                    t.latency_ms as f64 / 1000.0
                ),
                None => "—".into(),
            };
            let _ = write!(out, "<td>{cell}</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
    out
}
