//! Unified diffs that `git apply` and GNU `patch` accept.

use std::fmt::Write;

/// Renders one hunk as a complete unified diff against the base: headers,
/// up to `context` lines of base text on each side, and the
/// `\ No newline at end of file` marker where a line has no terminator.
///
/// `base` and `new` are lines with their terminators; the hunk replaces
/// `base[old_start..old_start + old_len]` with `new`. `created` writes
/// `/dev/null` as the old file.
pub fn render(
    path: &str,
    created: bool,
    base: &[&str],
    old_start: usize,
    old_len: usize,
    new: &[&str],
    context: usize,
) -> String {
    let before = old_start.saturating_sub(context)..old_start;
    let after = (old_start + old_len)..(old_start + old_len + context).min(base.len());
    let old_count = before.len() + old_len + after.len();
    let new_count = before.len() + new.len() + after.len();
    // GNU rule: an empty range names the line before it.
    let range = |start: usize, count: usize| {
        if count == 0 {
            format!("{start},0")
        } else {
            format!("{},{count}", start + 1)
        }
    };

    let mut out = String::new();
    // A tab ends a name that holds spaces, for GNU patch and git alike.
    let end = if path.contains(char::is_whitespace) {
        "\t"
    } else {
        ""
    };
    let old_name = if created {
        "/dev/null".to_owned()
    } else {
        format!("a/{path}{end}")
    };
    let _ = writeln!(out, "--- {old_name}");
    let _ = writeln!(out, "+++ b/{path}{end}");
    let _ = writeln!(
        out,
        "@@ -{} +{} @@",
        range(before.start, old_count),
        range(before.start, new_count)
    );
    let mut line = |prefix: char, text: &str| {
        out.push(prefix);
        out.push_str(text);
        if !text.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    };
    for l in &base[before] {
        line(' ', l);
    }
    for l in &base[old_start..old_start + old_len] {
        line('-', l);
    }
    for l in new {
        line('+', l);
    }
    for l in &base[after] {
        line(' ', l);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_gnu_ranges_and_missing_newlines() {
        let base = ["a\n", "b\n", "c"];
        let patch = render("x.md", false, &base, 2, 1, &["C"], 3);
        assert_eq!(
            patch,
            "--- a/x.md\n+++ b/x.md\n@@ -1,3 +1,3 @@\n a\n b\n-c\n\\ No newline at end of file\n+C\n\\ No newline at end of file\n"
        );
        let created = render("n.md", true, &[], 0, 0, &["hi\n"], 3);
        assert_eq!(created, "--- /dev/null\n+++ b/n.md\n@@ -0,0 +1,1 @@\n+hi\n");
        let deletion = render("x.md", false, &["a\n"], 0, 1, &[], 3);
        assert!(deletion.contains("@@ -1,1 +0,0 @@\n-a\n"), "{deletion}");
    }
}
