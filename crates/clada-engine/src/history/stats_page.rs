//! `git clada stats`' documents: a Markdown summary for a pull request or a CI job, and one
//! self-contained HTML page (no script, no outside asset, a Content-Security-Policy allowing
//! only inline style) with the AI share per file and per week, by agent and model. Every
//! value from notes and paths is escaped for the document it goes into; each number of the
//! page is in an element with a `data-k` naming its place in the JSON report.

use clada_base::term::{escape, Rule};

use super::stats::{AgentLines, Counts, StatsReport};

/// The range's name: `BASE..TIP` by their short ids, or the tip's.
fn range_name(report: &StatsReport) -> String {
    let short = |id: &str| id.get(..8).unwrap_or(id).to_string();
    match &report.base {
        Some(base) => format!("{}..{}", short(base), short(&report.rev)),
        None => short(&report.rev),
    }
}

fn percent(c: &Counts) -> String {
    match c.all() {
        0 => "0%".into(),
        all => format!("{}%", (c.ai * 100 + all / 2) / all),
    }
}

/// Text from notes or paths in Markdown: control characters made visible, then every
/// character Markdown or HTML could read as syntax backslash-escaped.
fn md(text: &str) -> String {
    let text = escape(text, Rule::Name);
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if "\\`*_{}[]()<>#+-.!|&~\"'".contains(ch) {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// The summary as Markdown: the lines the range added and those at its tip by origin, then
/// each agent and model's.
pub fn markdown(report: &StatsReport) -> String {
    let mut out = format!("### AI share of {}\n\n", range_name(report));
    out.push_str("| lines | AI | human | unknown | AI share |\n|---|---:|---:|---:|---:|\n");
    for (what, c) in [
        ("added by the range", &report.added),
        ("still at the tip", &report.total),
    ] {
        out.push_str(&format!(
            "| {what} | {} | {} | {} | {} |\n",
            c.ai,
            c.human,
            c.unknown,
            percent(c)
        ));
    }
    if !report.agents.is_empty() {
        out.push_str(
            "\n| agent | model | AI lines added | still at the tip |\n|---|---|---:|---:|\n",
        );
        for a in &report.agents {
            out.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                md(&a.agent),
                md(&a.model),
                a.added,
                a.surviving
            ));
        }
    }
    out
}

/// Text from notes or paths in HTML: control characters made visible, `& < > " '` as
/// character references, so it is text in an element or an attribute, never markup.
fn html(text: &str) -> String {
    let text = escape(text, Rule::Name);
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:14px system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{padding:2px 8px;border-bottom:1px solid #ddd}\
td.n{text-align:right;font-variant-numeric:tabular-nums}.bar{width:160px;height:10px;background:#ccc}\
.bar>div{height:10px;background:#7b5cd6}.who{color:#555;font-size:12px}";

/// A number cell the test reads back: `data-k` is its place in the JSON report.
fn num(key: &str, n: u64) -> String {
    format!("<td class=\"n\" data-k=\"{key}\">{n}</td>")
}

fn share(c: &Counts) -> String {
    let width = match c.all() {
        0 => 0,
        all => (c.ai * 100 + all / 2) / all,
    };
    format!(
        "<td><div class=\"bar\" title=\"{}\"><div style=\"width:{width}%\"></div></div></td>",
        percent(c)
    )
}

fn counts_cells(key: &str, c: &Counts) -> String {
    format!(
        "{}{}{}{}",
        num(&format!("{key}.ai"), c.ai),
        num(&format!("{key}.human"), c.human),
        num(&format!("{key}.unknown"), c.unknown),
        share(c)
    )
}

fn who(agents: &[AgentLines]) -> String {
    let list: Vec<String> = agents
        .iter()
        .map(|a| format!("{}/{} {}", html(&a.agent), html(&a.model), a.lines))
        .collect();
    format!("<td class=\"who\">{}</td>", list.join(", "))
}

/// The page: the summary, each agent and model, each week, each file.
pub fn page(report: &StatsReport) -> String {
    let name = html(&range_name(report));
    let head = "<tr><th></th><th>AI</th><th>human</th><th>unknown</th><th>AI share</th>";
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
<title>AI share of {name}</title><style>{STYLE}</style></head><body>\n<h1>AI share of {name}</h1>\n"
    );
    out.push_str(&format!(
        "<table id=\"summary\">{head}</tr>\n<tr><th>lines added by the range</th>{}</tr>\n\
<tr><th>lines still at the tip</th>{}</tr></table>\n",
        counts_cells("added", &report.added),
        counts_cells("total", &report.total)
    ));
    out.push_str("<h2>By agent and model</h2>\n<table id=\"agents\"><tr><th>agent</th><th>model</th><th>AI lines added</th><th>still at the tip</th></tr>\n");
    for (i, a) in report.agents.iter().enumerate() {
        out.push_str(&format!(
            "<tr><td data-k=\"agents.{i}.agent\">{}</td><td data-k=\"agents.{i}.model\">{}</td>{}{}</tr>\n",
            html(&a.agent),
            html(&a.model),
            num(&format!("agents.{i}.added"), a.added),
            num(&format!("agents.{i}.surviving"), a.surviving)
        ));
    }
    out.push_str("</table>\n<h2>Per week (lines added, by author date)</h2>\n<table id=\"weeks\">");
    out.push_str(&format!("{head}<th>AI by agent and model</th></tr>\n"));
    for (i, w) in report.weeks.iter().enumerate() {
        out.push_str(&format!(
            "<tr><th data-k=\"weeks.{i}.week\">{}</th>{}{}</tr>\n",
            html(&w.week),
            counts_cells(&format!("weeks.{i}"), &w.added),
            who(&w.agents)
        ));
    }
    out.push_str("</table>\n<h2>Per file (lines at the tip)</h2>\n<table id=\"files\">");
    out.push_str(&format!("{head}<th>AI by agent and model</th></tr>\n"));
    for (i, f) in report.files.iter().enumerate() {
        out.push_str(&format!(
            "<tr><th data-k=\"files.{i}.path\">{}</th>{}{}</tr>\n",
            html(&f.path),
            counts_cells(&format!("files.{i}"), &f.lines),
            who(&f.agents)
        ));
    }
    out.push_str("</table>\n</body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_for_each_document() {
        assert_eq!(
            html("<img src=x onerror='a'>&"),
            "&lt;img src=x onerror=&#39;a&#39;&gt;&amp;"
        );
        assert_eq!(md("a|b<c>"), "a\\|b\\<c\\>");
    }
}
