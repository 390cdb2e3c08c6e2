//! `read_file`: numbered lines of one text file, with the file's hash.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Tool, ToolError};
use crate::project::{View, text};

/// Arguments of `read_file`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The file, relative to the project root, e.g. `notes/team/onboarding.md`.
    #[schemars(length(min = 1))]
    pub file_path: String,
    /// First line to return (1-based). Default 1.
    #[schemars(range(min = 1))]
    pub start_line: Option<usize>,
    /// Last line to return (inclusive). Default: 800 lines from `start_line`, or the end of the file.
    #[schemars(range(min = 1))]
    pub end_line: Option<usize>,
    /// Most bytes of file text to return; whole lines only. Default 65536, at most 262144.
    #[schemars(range(min = 1))]
    pub max_bytes: Option<usize>,
}

/// The result of `read_file`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ReadOutput {
    /// The file, relative to the project root.
    pub file_path: String,
    /// `sha256:` of the whole text it was read from (the working buffer when
    /// the file has one, else the disk's bytes).
    pub file_hash: String,
    /// First line returned.
    pub start_line: usize,
    /// Last line returned (inclusive); `start_line - 1` when nothing was.
    pub end_line: usize,
    /// Lines in the whole file.
    pub total_lines: usize,
    /// The lines, each as `<number>\t<text>`: the numbering edits use.
    pub content: String,
    /// Whether the range asked for was cut short by the line or byte limit.
    pub truncated: bool,
    /// Where to continue reading, when lines remain after this range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_start_line: Option<usize>,
    /// What was returned and how to read on, for the model.
    pub notice: String,
}

/// The `read_file` tool.
pub struct ReadFile;

impl Tool for ReadFile {
    const NAME: &'static str = "read_file";
    const DESCRIPTION: &'static str = "Read a text file of the project as numbered lines \
        (`<line number><TAB><text>`, the numbering edits refer to), with the file's hash. \
        Returns up to 800 lines or 64 KB from `start_line`; when the file is longer, the \
        result says so and gives `next_start_line` to continue.";
    type Args = ReadArgs;
    type Output = ReadOutput;

    fn run(view: &View<'_>, args: ReadArgs) -> Result<ReadOutput, ToolError> {
        let limits = view.project().limits();
        let file = view.read_text(&args.file_path)?;
        let lines: Vec<&str> = text::lines(&file.text).collect();
        let total = lines.len();
        let start = args.start_line.unwrap_or(1);
        if start > total.max(1) {
            return Err(ToolError::OutOfRange(format!(
                "start_line {start} is past the end of `{}`, which has {total} lines",
                args.file_path
            )));
        }
        if let Some(end) = args.end_line.filter(|&end| end < start) {
            return Err(ToolError::OutOfRange(format!(
                "end_line {end} is before start_line {start}"
            )));
        }
        let wanted_end = match args.end_line {
            Some(end) => end.min(total),
            None => (start - 1 + limits.max_read_lines_default).min(total),
        };
        let budget = args
            .max_bytes
            .unwrap_or(limits.max_read_bytes_default)
            .min(limits.max_read_bytes_cap);

        let width = wanted_end.max(1).to_string().len();
        let mut content = String::new();
        let mut used = 0;
        let mut end = start - 1;
        let mut clipped = false;
        for (index, line) in lines.iter().enumerate().take(wanted_end).skip(start - 1) {
            let n = index + 1;
            let cost = line.len() + 1;
            if used + cost > budget {
                if n == start {
                    // One line longer than the budget: show its head rather than nothing.
                    content.push_str(&format!("{n:>width$}\t{}\n", text::clip_line(line, budget)));
                    end = n;
                    clipped = true;
                }
                break;
            }
            used += cost;
            content.push_str(&format!("{n:>width$}\t{line}\n"));
            end = n;
        }

        let asked_to_stop = args.end_line.is_some_and(|e| e <= end);
        let truncated = end < wanted_end || clipped || (args.end_line.is_none() && end < total);
        let next_start_line = (end < total && !asked_to_stop).then_some(end + 1);
        let notice = if total == 0 {
            "The file is empty.".to_owned()
        } else {
            let mut notice = format!("Lines {start}-{end} of {total}.");
            if clipped {
                notice.push_str(&format!(
                    " Line {end} is longer than max_bytes ({budget}) and was cut."
                ));
            }
            if let Some(next) = next_start_line {
                notice.push_str(&format!(
                    " The file continues: call read_file with start_line={next} to read on."
                ));
            }
            notice
        };
        Ok(ReadOutput {
            file_path: file.path.rel().to_owned(),
            file_hash: file.hash,
            start_line: start,
            end_line: end,
            total_lines: total,
            content,
            truncated,
            next_start_line,
            notice,
        })
    }
}
